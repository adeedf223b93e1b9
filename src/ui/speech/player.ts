/**
 * The audio player of this tab (spec 001 section 4, "Audio playback"): idle, playing, paused. It plays a message's
 * chunks in sequence as the engine makes them (the `speech` query), skips a chunk that failed to generate or to
 * play, and when the browser blocks autoplay it pauses and shows the persistent blue notice 'Audio Ready' /
 * 'Click here to play the audio response', whose click (a user gesture) plays it. One message plays at a time.
 * View state only (valtio): the audio itself is engine data (Blobs in the local database).
 */
import type { ReadAloudResult, SpeechChoice, SpeechState } from '../../protocol/engine';
import { SPEECH_TEXT } from '../../protocol/speech-defaults';
import { connection, engine } from '../engine';
import { dismissLocalNotice, showLocalNotice, view } from '../state';
import { player } from './player-state';

export { player, type PlayerStatus } from './player-state';

let audio: HTMLAudioElement | null = null;
let url: string | null = null;
let speech: SpeechState | null = null;
let unsubscribe: (() => void) | null = null;
let run = 0;
/** Resolved when the speech state changes (the player waits on it for the next chunk). */
let wake: (() => void) | null = null;
/** The engine's readAloud call for the message playing has returned: no chunk will be added after this. */
let engineDone = false;

function element(): HTMLAudioElement {
  audio ??= new Audio();
  return audio;
}

function release(): void {
  if (url) URL.revokeObjectURL(url);
  url = null;
}

function dismissBlocked(): void {
  for (const n of view.localNotices) if (n.title === SPEECH_TEXT.audioReadyTitle) dismissLocalNotice(n.id);
}

/** Stops playback and forgets the message. */
export function stopAudio(): void {
  run++;
  unsubscribe?.();
  unsubscribe = null;
  speech = null;
  wake?.();
  const a = audio;
  if (a) {
    a.pause();
    a.removeAttribute('src');
    a.load();
  }
  release();
  dismissBlocked();
  Object.assign(player, { status: 'idle', messageId: null, chunk: 0, chunkCount: 0, played: [], waiting: false, blocked: false });
}

export function pauseAudio(): void {
  if (player.status !== 'playing') return;
  audio?.pause();
  player.status = 'paused';
}

/** Resumes a paused (or blocked) message; called from a click, so the browser lets it play. */
export function resumeAudio(): void {
  if (player.status !== 'paused' || !audio) return;
  dismissBlocked();
  player.blocked = false;
  player.status = 'playing';
  void audio.play().catch(() => {
    player.status = 'paused';
  });
}

/** Waits until chunk `i` is made (its file), has failed ('skip'), or the message has no more ('end'). */
async function chunkFile(i: number, mine: number): Promise<{ fileId: number } | 'skip' | 'end' | 'stop'> {
  for (;;) {
    if (mine !== run) return 'stop';
    const a = speech?.audio;
    if (a && a.chunkCount > 0) {
      if (i >= a.chunkCount) return 'end';
      const ref = a.chunks[i];
      if (ref) return ref;
      if (a.failed.includes(i)) return 'skip';
    }
    // The engine's run is over and this chunk was not made: skip it (or stop when there is no audio at all).
    if (engineDone) return a && i < a.chunkCount ? 'skip' : 'end';
    player.waiting = true;
    await new Promise<void>((r) => (wake = r));
    player.waiting = false;
  }
}

/** Plays one chunk to its end: 'ended', 'failed' (skip it) or 'blocked' (autoplay refused). */
function playChunk(blob: Blob, mine: number): Promise<'ended' | 'failed' | 'blocked' | 'stop'> {
  const a = element();
  release();
  url = URL.createObjectURL(blob);
  a.src = url;
  return new Promise((resolve) => {
    const done = (r: 'ended' | 'failed' | 'blocked' | 'stop') => {
      a.onended = null;
      a.onerror = null;
      resolve(mine === run ? r : 'stop');
    };
    a.onended = () => done('ended');
    a.onerror = () => done('failed');
    a.play().catch((e: unknown) => {
      if (e instanceof DOMException && e.name === 'NotAllowedError') {
        player.blocked = true;
        player.status = 'paused';
        showLocalNotice({ title: SPEECH_TEXT.audioReadyTitle, text: SPEECH_TEXT.audioReadyText, tone: 'blue', durationMs: null, action: { label: 'Play', kind: 'playAudio', messageId: player.messageId ?? 0 } });
        // The chunk waits, paused; a click on the notice plays it and 'ended' follows.
        return;
      }
      if (e instanceof DOMException && e.name === 'AbortError') return done('stop');
      done('failed');
    });
  });
}

async function playAll(mine: number): Promise<void> {
  for (let i = 0; ; i++) {
    player.chunk = i;
    const ref = await chunkFile(i, mine);
    if (ref === 'stop') return;
    if (ref === 'end') break;
    if (ref === 'skip') continue; // a chunk that failed to generate is skipped
    const blob = await engine<Blob | null>((api) => api.getAudioFile(ref.fileId));
    if (mine !== run) return;
    if (!blob) continue;
    if (!player.blocked) player.status = 'playing';
    const r = await playChunk(blob, mine);
    if (r === 'stop') return;
    if (r === 'ended') player.played = [...player.played, i];
  }
  if (mine === run) {
    release();
    Object.assign(player, { status: 'idle', waiting: false });
    unsubscribe?.();
    unsubscribe = null;
  }
}

/**
 * Reads a message aloud: asks the engine for its speech (made or found cached) and plays the chunks as they come.
 * Called again for the message playing, it pauses or resumes instead.
 */
export async function readAloud(messageId: number, choice: SpeechChoice & { model?: string } = {}): Promise<void> {
  if (player.messageId === messageId && player.status !== 'idle') {
    if (player.status === 'playing') pauseAudio();
    else resumeAudio();
    return;
  }
  stopAudio();
  const mine = run;
  engineDone = false;
  Object.assign(player, { status: 'playing', messageId, chunk: 0, played: [], waiting: true });
  element();
  unsubscribe = connection.subscribe({ kind: 'speech', messageId }, (s) => {
    speech = s;
    player.chunkCount = s.audio?.chunkCount ?? player.chunkCount;
    wake?.();
  });
  void playAll(mine);
  const r: ReadAloudResult = await engine<ReadAloudResult>((api) => api.readAloud(messageId, choice)).catch((e: unknown) => ({ ok: false as const, error: e instanceof Error ? e.message : String(e) }));
  if (mine !== run) return;
  // The run's own answer holds every chunk it made; the `speech` query may bring them later than this return, and
  // the player must not take "the engine is done and nothing is known" for a message with no audio.
  if (r.ok) {
    speech = { generating: false, error: speech?.error ?? null, audio: r.audio };
    player.chunkCount = r.audio.chunkCount;
  }
  engineDone = true;
  wake?.();
  if (!r.ok) {
    const skipped = r.skipped === 'balance';
    showLocalNotice({ title: skipped ? 'Insufficient balance' : SPEECH_TEXT.failed, text: r.error, tone: skipped ? 'orange' : 'red', durationMs: 8000 });
    stopAudio();
  }
}
