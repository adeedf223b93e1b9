/**
 * Speech (spec 000 sections 4 and 8, spec 001 sections 3 to 5): the Audio mode's handler of the submit flow (a prompt
 * becomes speech with the chosen model, voice and speed, stored as an assistant message with its audio), the Voice
 * mode's handler (a chat reply that the view then speaks), Read aloud, the audio files the player plays, and
 * transcription for voice mode. The pipeline itself is rooms/speech/speaker.ts.
 */
import { makeEvent } from '../../../events/catalogue';
import type { MessageRow } from '../../../events/model';
import type { ReadAloudResult, SpeechChoice, SpeechHandlers } from '../../../protocol/engine';
import { speechChars, speechCostMicro, speechModel, SPEECH_TEXT } from '../../../protocol/speech-catalogue';
import type { TranscribeConfig, TranscribeResponse } from '../../../protocol/speech';
import type { EngineCore } from '../../core';
import { classifyModelError } from '../../infra/errors';
import { pendingAssistant } from '../../../shared/history';
import { MODEL_ERROR } from '../../../shared/messages';
import type { LiveReply } from '../replies/reply-runner';
import { INSUFFICIENT_FOR_AUDIO, SPEECH_ROOM, type SpeakerTiming, type SpeakRequest } from './speaker';
import { ReplyStreamParser } from '../replies/stream-parser';
import { chatMode } from '../chat/commands';
import { sessionCurrency, type BalanceProbe } from '../replies/submit';
import { registerModeHandler, type ModeHandler, type Submission } from '../replies/submit-plugins';
import { liveReplies } from '../replies/live';

/** Step 2 for the Audio mode: the text's price is known here, so the notice names it without asking the gateway. */
const audioBalanceProbe: BalanceProbe = async (core, { prompt, paid }) => {
  await core.refreshSession();
  if (core.session$.value.canUsePaidModels) return null;
  const model = speechModel(paid[0]?.id ?? '');
  const micro = model ? speechCostMicro(model, speechChars(prompt)) : 10n;
  const usd = (Number(micro > 10n ? micro : 10n) / 1e6).toFixed(6);
  core.notify(classifyModelError({ status: 402, code: 'INSUFFICIENT_BALANCE', message: 'Insufficient balance', body: { requiredUsd: usd }, currency: 'USD' }));
  return { ok: false, error: MODEL_ERROR.insufficientBalanceTitle, notified: true };
};


export function speechCommands(core: EngineCore, timing: SpeakerTiming = {}): SpeechHandlers {
  const speaker = core.room(SPEECH_ROOM);
  speaker.useTiming(timing);

  /** Shows an Audio mode reply as live while its speech is made (from a submit, or taken over by a new engine). */
  function liveReply(message: Pick<MessageRow, 'id' | 'conversationSlug' | 'requestId'>, userMessageId: number): LiveReply {
    const reply: LiveReply = { messageId: message.id, userMessageId, slug: message.conversationSlug, requestId: message.requestId ?? '', parser: new ReplyStreamParser(), controller: new AbortController(), stoppedByUser: false };
    liveReplies(core).live.set(reply.messageId, reply);
    return reply;
  }

  /** Step 7 of an Audio mode submit: the prompt's speech; a failure marks the reply failed with its notice. */
  function speakReply(reply: LiveReply, request: SpeakRequest): void {
    void speaker
      .speak(reply.messageId, { ...request, completes: true })
      .then(async (r) => {
        // Stopped by the engine's dispose: the database is closing, a new engine resumes the reply.
        if (r.ok || speaker.isStopped) return;
        const at = Date.now();
        if (r.skipped !== 'balance') core.notify({ title: r.error === SPEECH_TEXT.pollingTimeout ? r.error : SPEECH_TEXT.failed, text: r.error === SPEECH_TEXT.pollingTimeout ? '' : r.error, tone: 'red', durationMs: 15_000 });
        await core.append([makeEvent('reply.failed', { messageId: reply.messageId, userMessageId: reply.userMessageId, conversationSlug: reply.slug, error: r.error, keepPartial: false, text: '', thinking: '', cost: 0, paymentSource: null, at }, crypto.randomUUID(), at)]);
      })
      .catch((e: unknown) => console.error('Audio reply failed to record', e))
      .finally(() => {
        liveReplies(core).live.delete(reply.messageId);
        liveReplies(core).live$.next(reply.slug);
        void core.refreshSession();
      });
  }

  /** Steps 6 and 7 of an Audio mode submit: a pending assistant message (its requestId and voice in the log), then its speech. */
  async function runAudio(s: Submission) {
    const { conversation, user, events, model, now } = s;
    const speechChoice = s.input.speech ?? {};
    const assistant: MessageRow = { ...pendingAssistant(core.ids.next(now), user, model.id, now + 1), mode: 'audio', requestId: crypto.randomUUID(), speechChoice };
    events.push(makeEvent('message.added', { message: assistant }, crypto.randomUUID(), now));
    const reply = liveReply(assistant, user.id);
    try {
      await core.append(events);
    } catch {
      liveReplies(core).live.delete(reply.messageId);
      return { ok: false as const, error: MODEL_ERROR.localStorageTitle, notified: true };
    }
    speakReply(reply, { ...speechChoice, model: model.id, text: typeof user.prompt === 'string' ? user.prompt : '' });
    return { ok: true as const, slug: conversation.slug, userMessageId: user.id };
  }

  /** An Audio mode reply left pending by an engine that went away: its chunks asked again under their requestIds. */
  liveReplies(core).resumers.set('audio', async (message) => {
    const user = message.parentMessageId === null ? undefined : await core.db.messages.get(message.parentMessageId);
    if (!user) return false;
    speakReply(liveReply(message, user.id), { ...message.speechChoice, model: message.model, text: typeof user.prompt === 'string' ? user.prompt : '' });
    return true;
  });

  const audioMode: ModeHandler = {
    mode: 'audio',
    queueable: false,
    multiModel: false,
    accepts: (m) => m.modality === 'audio',
    validate(input, m) {
      const model = speechModel(m.id);
      if (!model) return `Unknown text-to-speech model: ${m.id}`;
      const chars = speechChars(input.prompt.trim());
      if (chars > model.maxChars) return `The text is ${chars.toLocaleString('en-US')} characters; ${model.displayName} takes at most ${model.maxChars.toLocaleString('en-US')}`;
      const settings = speaker.settingsFor(model, input.speech ?? {});
      return 'error' in settings ? settings.error : null;
    },
    balanceProbe: audioBalanceProbe,
    run: runAudio,
  };

  // Voice mode: the turn is a chat turn (its text came from the microphone); the view speaks the reply.
  const voiceMode: ModeHandler = { ...chatMode, mode: 'voice', queueable: false, multiModel: false };

  registerModeHandler(core, audioMode);
  registerModeHandler(core, voiceMode);

  return {
    async readAloud(messageId: number, choice: SpeechChoice & { model?: string } = {}): Promise<ReadAloudResult> {
      const r = await speaker.speak(messageId, choice);
      if (!r.ok && r.error === SPEECH_TEXT.pollingTimeout) core.notify({ title: r.error, text: '', tone: 'red', durationMs: 15_000 });
      return r;
    },

    async getAudioFile(fileId: number): Promise<Blob | null> {
      await core.whenStarted();
      const row = await core.db.files.get(fileId);
      if (!row) return null;
      return row.file instanceof Blob ? row.file : new Blob([row.file]);
    },

    async transcribe(audio: Blob, language?: string) {
      const query = new URLSearchParams({ requestId: crypto.randomUUID() });
      if (language) query.set('language', language);
      try {
        const res = await fetch(`/api/transcribe?${query}`, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': audio.type || 'audio/webm' }, body: audio });
        const body = (await res.json().catch(() => null)) as (Partial<TranscribeResponse> & { message?: string }) | null;
        if (!res.ok) {
          if (res.status === 402) core.notify(classifyModelError({ status: 402, code: 'INSUFFICIENT_BALANCE', body, currency: sessionCurrency(core) }));
          return { ok: false as const, error: body?.message ?? `Transcription failed (HTTP ${res.status})` };
        }
        void core.refreshSession();
        return { ok: true as const, text: typeof body?.text === 'string' ? body.text : '' };
      } catch (e) {
        return { ok: false as const, error: `Transcription failed: ${e instanceof Error ? e.message : String(e)}` };
      }
    },

    async transcriptionConfig(): Promise<TranscribeConfig> {
      try {
        const res = await fetch('/api/transcribe/config', { credentials: 'same-origin' });
        if (res.ok) return (await res.json()) as TranscribeConfig;
      } catch {
        // the gateway is unreachable: no transcription
      }
      return { available: false, model: null, maxBytes: 0 };
    },
  };
}

export { INSUFFICIENT_FOR_AUDIO };
