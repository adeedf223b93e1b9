/**
 * The speech pipeline of the engine (spec 001 section 4, "Audio playback"): a message's text, thinking stripped,
 * split into chunks of at most 3900 characters, each asked of POST /api/tts in order (202 runs polled, ./tts-client.ts),
 * its audio stored as a Blob in `files` and recorded with `speech.generated` (the take so far) as soon as it is made,
 * so the player starts on the first chunk while the next is made. A chunk that fails is recorded as failed and
 * skipped. Cached per message and chunk: a take with the same model, voice and settings is not made again, and an
 * interrupted one goes on from its first missing chunk. With a paid model and no balance above the threshold,
 * generation is skipped.
 */
import { BehaviorSubject } from 'rxjs';
import { makeEvent } from '../../../events/catalogue';
import type { AudioChunkRef, MessageAudio, MessageRow } from '../../../events/model';
import type { ModelInfo } from '../../../protocol/api';
import type { ReadAloudResult, SpeechChoice, SpeechState } from '../../../protocol/engine';
import { DEFAULT_AUDIO_MODEL, ELEVENLABS_DEFAULTS, OFFLINE_VOICE_MODEL_ID, speechModel, speechSpeed, speechVoice, SPEECH_TEXT, type SpeechModel } from '../../../protocol/speech-catalogue';
import type { TtsRequest } from '../../../protocol/speech';
import type { EngineCore, Room, RoomKind } from '../../core';
import { speakable, speechChunks } from './text';
import { requestSpeech } from './tts-client';

export const INSUFFICIENT_FOR_AUDIO = 'Insufficient balance: audio generation was skipped';

export interface SpeakRequest extends SpeechChoice {
  model?: string;
  /** The text to speak (Audio mode: the prompt); default: the message's own text. */
  text?: string;
  /** An Audio mode reply: the message becomes done with the take's cost when its speech is finished. */
  completes?: boolean;
}

/**
 * A chunk's requestId. An Audio mode reply's are derived from the reply's requestId (in the log) and its take, so a
 * new engine that takes the reply over asks the gateway for the same chunks and gets the ones already made, never
 * made or charged twice (issue 9). Read aloud asks afresh each time.
 */
export function chunkRequestId(message: MessageRow, req: SpeakRequest, key: string, index: number): string {
  if (!req.completes || message.mode !== 'audio' || !message.requestId) return `${message.id}-${index}-${crypto.randomUUID()}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return `${message.requestId}-${h.toString(16)}-${index}`;
}

export interface SpeakerTiming {
  pollMs?: number;
  maxPolls?: number;
}

/** The voice, speed and extra settings a take was made with (its key records them). */
function takeSettings(take: MessageAudio): { voice: string; speed: number; extra: Pick<TtsRequest, 'stability' | 'similarity_boost' | 'style' | 'instructions'> } | null {
  try {
    const key = JSON.parse(take.key) as unknown[];
    const extra = key[3];
    return { voice: take.voice, speed: take.speed, extra: typeof extra === 'object' && extra !== null ? (extra as Pick<TtsRequest, 'stability' | 'similarity_boost' | 'style' | 'instructions'>) : {} };
  } catch {
    return null;
  }
}

const IDLE: SpeechState = { audio: null, generating: false, error: null };

function promptText(m: MessageRow): string {
  if (typeof m.prompt === 'string') return m.prompt;
  return m.prompt.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/** Each engine's speaker (the speech room): its `speech` query (./queries.ts) and commands (./commands.ts). */
export const SPEECH_ROOM: RoomKind<Speaker> = { name: 'speech', create: (core) => new Speaker(core) };

/** What a run stopped by the engine's dispose answers (nobody records it: the database is closing). */
export const SPEECH_STOPPED = 'Speech stopped: the engine closed.';

export class Speaker implements Room {
  /** Aborted on dispose: the chunk being asked for stops polling at once and no other is asked. */
  private readonly stopped = new AbortController();
  /** Runs in flight, by message id: a second request for the same message joins the first. */
  private readonly runs = new Map<number, Promise<ReadAloudResult>>();
  /** Per-message generating flag and last error, for the `speech` query. */
  readonly states = new Map<number, BehaviorSubject<SpeechState>>();

  constructor(
    private readonly core: EngineCore,
    private timing: SpeakerTiming = {},
  ) {}

  /** The TTS polling clock (tests shorten it). */
  useTiming(timing: SpeakerTiming): void {
    this.timing = timing;
  }

  get isStopped(): boolean {
    return this.stopped.signal.aborted;
  }

  dispose(): void {
    this.stopped.abort();
  }

  state$(messageId: number): BehaviorSubject<SpeechState> {
    let s = this.states.get(messageId);
    if (!s) {
      s = new BehaviorSubject<SpeechState>(IDLE);
      this.states.set(messageId, s);
    }
    return s;
  }

  private publish(messageId: number, patch: Partial<SpeechState>): void {
    const s = this.state$(messageId);
    s.next({ ...s.value, ...patch });
  }

  /** The model to speak with: asked for, else the preferred one, else the default audio model, else the offline voice. */
  resolveModel(asked: string | undefined): { info: ModelInfo; model: SpeechModel } | null {
    const offered = this.core.models$.value.models.filter((m) => m.modality === 'audio');
    const pick = (id: string | undefined) => (id ? offered.find((m) => m.id === id) : undefined);
    const info = asked !== undefined ? pick(asked) : (pick(this.core.preferences$.value.preferredTTSModel) ?? pick(DEFAULT_AUDIO_MODEL) ?? pick(OFFLINE_VOICE_MODEL_ID));
    const model = info ? speechModel(info.id) : undefined;
    return info && model ? { info, model } : null;
  }

  /** The request fields for a model, from the choice and the preferences (voice and speed per model, ElevenLabs sliders). */
  settingsFor(model: SpeechModel, choice: SpeechChoice): { voice: string; speed: number; extra: Pick<TtsRequest, 'stability' | 'similarity_boost' | 'style' | 'instructions'> } | { error: string } {
    const prefs = this.core.preferences$.value;
    const voice = choice.voice ?? prefs.ttsVoicePreferences[model.id] ?? model.defaultSettings.voice;
    if (!speechVoice(model, voice)) return { error: `${model.displayName} has no voice '${voice}'` };
    const speed = speechSpeed(model, choice.speed ?? prefs.ttsSpeedPreferences[model.id]);
    const extra: Pick<TtsRequest, 'stability' | 'similarity_boost' | 'style' | 'instructions'> = {};
    if (model.provider === 'elevenlabs') {
      const e = { ...ELEVENLABS_DEFAULTS, ...prefs.elevenLabsSettings };
      extra.stability = choice.stability ?? e.stability;
      extra.similarity_boost = choice.similarity_boost ?? e.similarity_boost;
      extra.style = choice.style ?? e.style;
    }
    if (model.additionalParams?.instructions && choice.instructions?.trim()) extra.instructions = choice.instructions.trim();
    return { voice, speed, extra };
  }

  speak(messageId: number, req: SpeakRequest = {}): Promise<ReadAloudResult> {
    const running = this.runs.get(messageId);
    if (running) return running;
    const run = this.run(messageId, req).finally(() => {
      this.runs.delete(messageId);
      this.publish(messageId, { generating: false });
    });
    this.runs.set(messageId, run);
    return run;
  }

  private async run(messageId: number, req: SpeakRequest): Promise<ReadAloudResult> {
    const core = this.core;
    await core.whenStarted();
    const message = await core.db.messages.get(messageId);
    if (!message) return { ok: false, error: 'Message not found' };
    if (core.models$.value.models.length === 0) await core.loadModels();
    const resolved = this.resolveModel(req.model);
    if (!resolved) return this.fail(messageId, req.model ? `Unknown text-to-speech model: ${req.model}` : 'No text-to-speech model is available');
    const { info, model } = resolved;
    // Played again with no new choice: the message's own take, with the settings it was made with.
    const replay = message.audio && message.audio.model === model.id && req.voice === undefined && req.speed === undefined ? takeSettings(message.audio) : null;
    const settings = replay ?? this.settingsFor(model, req);
    if ('error' in settings) return this.fail(messageId, settings.error);
    // An Audio mode reply speaks its prompt (the user message it answers); any other message its own text.
    const parent = req.text === undefined && message.mode === 'audio' && message.parentMessageId !== null ? await core.db.messages.get(message.parentMessageId) : undefined;
    const text = req.text ?? (parent ? promptText(parent).trim() : speakable(promptText(message)));
    const parts = speechChunks(text);
    if (parts.length === 0) return this.fail(messageId, 'There is no text to read aloud');

    // Spec 001 section 4: with a paid model and no balance above the paid-use threshold, generation is skipped.
    if (!info.free) {
      if (!core.session$.value.canUsePaidModels) await core.refreshSession();
      if (!core.session$.value.canUsePaidModels) {
        this.publish(messageId, { error: INSUFFICIENT_FOR_AUDIO });
        return { ok: false, error: INSUFFICIENT_FOR_AUDIO, skipped: 'balance' };
      }
    }

    const key = JSON.stringify([model.id, settings.voice, settings.speed, settings.extra, parts.length, text.length]);
    const previous = message.audio;
    const take: MessageAudio =
      previous && previous.key === key
        ? { ...previous, chunks: [...previous.chunks], failed: [] }
        : { key, model: model.id, voice: settings.voice, speed: settings.speed, chunkCount: parts.length, chunks: parts.map(() => null), failed: [], cost: 0 };
    const stale = previous && previous.key !== key ? previous.chunks.filter((c): c is AudioChunkRef => c !== null).map((c) => c.fileId) : [];
    if (take.chunks.every((c) => c !== null)) {
      this.publish(messageId, { error: null });
      if (req.completes) await this.record(message, take, true, null);
      return { ok: true, audio: take };
    }

    this.publish(messageId, { generating: true, error: null, audio: take });
    let paymentSource: 'USD' | 'nano' | null = null;
    let lastError: string | null = null;
    for (let i = 0; i < parts.length; i++) {
      if (take.chunks[i]) continue;
      const base: TtsRequest = { text: parts[i] as string, model: model.id, voice: settings.voice, requestId: chunkRequestId(message, req, key, i), ...settings.extra };
      if (model.supportsSpeed) base.speed = settings.speed;
      if (this.isStopped) return { ok: false, error: SPEECH_STOPPED };
      let r: Awaited<ReturnType<typeof requestSpeech>>;
      try {
        r = await requestSpeech(base, { pollMs: this.timing.pollMs, maxPolls: this.timing.maxPolls, signal: this.stopped.signal });
      } catch (error) {
        if (this.isStopped) return { ok: false, error: SPEECH_STOPPED };
        throw error;
      }
      if (r.ok) {
        const fileId = core.ids.next(Date.now());
        const mimeType = r.blob.type || 'audio/mpeg';
        await core.db.files.put({ id: fileId, file: r.blob });
        take.chunks[i] = { fileId, mimeType, bytes: r.blob.size };
        take.cost = Math.round((take.cost + r.cost) * 1e6) / 1e6;
        paymentSource = r.paymentSource ?? paymentSource;
      } else {
        lastError = r.error;
        take.failed.push(i);
        if (r.insufficient) {
          // The balance ran out between chunks: the rest is skipped too.
          for (let j = i + 1; j < parts.length; j++) if (!take.chunks[j]) take.failed.push(j);
          await this.record(message, take, req.completes === true, paymentSource);
          this.publish(messageId, { error: INSUFFICIENT_FOR_AUDIO });
          return { ok: false, error: INSUFFICIENT_FOR_AUDIO, skipped: 'balance' };
        }
      }
      await this.record(message, take, req.completes === true && i === parts.length - 1, paymentSource);
      this.publish(messageId, { audio: { ...take, chunks: [...take.chunks], failed: [...take.failed] } });
    }
    if (stale.length > 0) await core.db.files.bulkDelete(stale).catch(() => undefined);
    void core.refreshSession();
    if (take.chunks.every((c) => c === null)) return this.fail(messageId, lastError ?? SPEECH_TEXT.failed);
    this.publish(messageId, { error: lastError });
    return { ok: true, audio: take };
  }

  private fail(messageId: number, error: string): ReadAloudResult {
    this.publish(messageId, { error });
    return { ok: false, error };
  }

  private async record(message: MessageRow, take: MessageAudio, completes: boolean, paymentSource: 'USD' | 'nano' | null): Promise<void> {
    const at = Date.now();
    const audio: MessageAudio = { ...take, chunks: [...take.chunks], failed: [...take.failed] };
    await this.core.append([makeEvent('speech.generated', { messageId: message.id, conversationSlug: message.conversationSlug, audio, completes, paymentSource, at }, crypto.randomUUID(), at)]);
  }
}
