/**
 * Voice mode's loop (spec 000 section 4): listen, transcribe, send the words as a Voice mode turn, wait for the
 * reply, speak it, listen again, until ended. Module state (valtio), not a component's: the loop goes on when the
 * page moves from /conversation/new to the conversation it created. Leaving the Voice mode ends it.
 */
import { proxy, subscribe } from 'valtio';
import type { ConversationView, SendMessageResult } from '../../protocol/engine';
import { composer } from '../composer-state';
import { connection, engine } from '../engine';
import { navigate } from '../router';
import { showLocalNotice } from '../state';
import { player, readAloud, stopAudio } from './player';
import { listen, MicrophoneError, type Listener, type MicrophoneProblem, type Utterance } from './voice-capture';

export type VoicePhase = 'off' | 'listening' | 'thinking' | 'speaking';

export const voice = proxy({
  phase: 'off' as VoicePhase,
  /** The last words heard. */
  heard: '',
  /** Hand the words to the composer instead of sending them. */
  review: false,
  /** Why the microphone could not be used at the last start (advice and Retry shown); null = no problem. */
  microphone: null as MicrophoneProblem | null,
});

let utterance: Utterance | null = null;
let active = false;
let slug: string | null = null;

/** Resolves with the reply to `userMessageId` once it is finished, or null when it failed. */
function replyTo(conversation: string, userMessageId: number): Promise<number | null> {
  return new Promise((resolve) => {
    let settled = false;
    const stop = connection.subscribe({ kind: 'conversation', slug: conversation }, (view: ConversationView | null) => {
      if (settled || !view) return;
      const user = view.messages.find((m) => m.id === userMessageId);
      const reply = view.messages.find((m) => m.parentMessageId === userMessageId && m.role === 'assistant');
      const finished = reply !== undefined && reply.status !== 'pending' && reply.status !== 'streaming';
      if (finished || user?.hasError) {
        settled = true;
        setTimeout(() => stop(), 0);
        resolve(finished && !reply.hasError ? reply.id : null);
      }
    });
  });
}

/** Resolves when the player has finished (or been stopped). */
function spoken(): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => player.status === 'idle' || !active;
    if (check()) return resolve();
    const off = subscribe(player, () => {
      if (check()) {
        off();
        resolve();
      }
    });
  });
}

async function loop(way: 'gateway' | 'browser', model: () => string): Promise<void> {
  while (active) {
    voice.phase = 'listening';
    const u = listen(way);
    utterance = u;
    let text = '';
    try {
      text = (await u.text).trim();
    } catch (e) {
      // A blocked or missing microphone is advice in the voice panel with Retry, not an error notice.
      if (e instanceof MicrophoneError) voice.microphone = e.problem;
      else if (active) showLocalNotice({ title: 'Could not hear you', text: e instanceof Error ? e.message : String(e), tone: 'red', durationMs: 8000 });
      break;
    }
    utterance = null;
    voice.microphone = null;
    if (!active) break;
    if (text === '') continue;
    voice.heard = text;
    if (voice.review) {
      // Spec 000 section 2: transcriptId is a key into session storage; the composer takes the text and removes it.
      const key = `transcript-${crypto.randomUUID()}`;
      sessionStorage.setItem(key, text);
      active = false;
      composer.mode = 'chat';
      navigate(`/conversation/${slug ?? 'new'}?mode=chat&transcriptId=${encodeURIComponent(key)}`);
      break;
    }
    voice.phase = 'thinking';
    const sent = await engine<SendMessageResult>((api) => api.sendMessage({ slug, prompt: text, model: model(), mode: 'voice' }));
    if (!sent.ok) {
      if (!sent.notified) showLocalNotice({ title: sent.error, text: '', tone: 'red', durationMs: 8000 });
      break;
    }
    if (slug !== sent.slug) {
      slug = sent.slug;
      navigate(`/conversation/${sent.slug}`, { replace: true });
    }
    const replyId = await replyTo(sent.slug, sent.userMessageId);
    if (!active || replyId === null) break;
    voice.phase = 'speaking';
    await readAloud(replyId);
    await spoken();
  }
  active = false;
  voice.phase = 'off';
}

export function startVoice(way: 'gateway' | 'browser', conversation: string | null, model: () => string): void {
  if (active) return;
  active = true;
  slug = conversation;
  voice.heard = '';
  voice.microphone = null;
  void loop(way, model);
}

export function endVoice(): void {
  active = false;
  utterance?.cancel();
  utterance = null;
  if (voice.phase === 'speaking') stopAudio();
  voice.phase = 'off';
}

/** Ends the done-speaking wait early ("Done speaking"). */
export function doneSpeaking(): void {
  utterance?.done();
}

// Leaving the Voice mode ends the conversation by voice.
subscribe(composer, () => {
  if (composer.mode !== 'voice' && active) endVoice();
});

export type { Listener };
