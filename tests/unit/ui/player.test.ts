/**
 * The tab's audio player (src/ui/speech/player.ts) against a stand-in engine: the engine's readAloud may return
 * before its `speech` query brings the chunks it made. The player must still play them, and when the browser refuses
 * to play without a gesture, show 'Audio Ready' (spec 001 section 4) instead of ending at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageAudio } from '../../../src/events/model';
import type { ReadAloudResult, SpeechState } from '../../../src/protocol/engine';

const fake = vi.hoisted(() => ({
  listeners: [] as ((s: SpeechState) => void)[],
  readAloud: (): Promise<ReadAloudResult> => Promise.reject(new Error('not set')),
}));

vi.mock('../../../src/ui/engine', () => ({
  connection: {
    subscribe: (_q: unknown, cb: (s: SpeechState) => void) => {
      fake.listeners.push(cb);
      return () => undefined;
    },
  },
  engine: <T>(fn: (api: unknown) => Promise<T>): Promise<T> =>
    fn({ readAloud: () => fake.readAloud(), getAudioFile: () => Promise.resolve(new Blob([new Uint8Array(8)], { type: 'audio/wav' })) }),
}));

const { player, readAloud, stopAudio } = await import('../../../src/ui/speech/player');
const { view } = await import('../../../src/ui/state');

const audioOf = (chunks: number): MessageAudio => ({
  key: 'k',
  model: 'kokoro',
  voice: 'af_bella',
  speed: 1,
  chunkCount: chunks,
  chunks: Array.from({ length: chunks }, (_, i) => ({ fileId: i + 1, mimeType: 'audio/wav', bytes: 8 })),
  failed: [],
  cost: 0,
});

/** A stand-in for HTMLAudioElement: play() ends at once, or is refused the way an autoplay policy refuses it. */
let plays = 0;
let refuse = false;
class FakeAudio {
  src = '';
  onended: (() => void) | null = null;
  onerror: (() => void) | null = null;
  play(): Promise<void> {
    plays++;
    if (refuse) return Promise.reject(new DOMException('no gesture', 'NotAllowedError'));
    queueMicrotask(() => this.onended?.());
    return Promise.resolve();
  }
  pause(): void {}
  load(): void {}
  removeAttribute(): void {}
}

beforeEach(() => {
  plays = 0;
  refuse = false;
  fake.listeners = [];
  vi.stubGlobal('Audio', FakeAudio);
});
afterEach(() => {
  stopAudio();
  view.localNotices = [];
  vi.unstubAllGlobals();
});

describe('the audio player', () => {
  it('plays every chunk the engine made when its answer comes before the speech query', async () => {
    // The query only ever says "nothing yet"; the answer holds the two chunks made.
    fake.readAloud = () => {
      for (const l of fake.listeners) l({ audio: null, generating: true, error: null });
      return Promise.resolve({ ok: true, audio: audioOf(2) });
    };
    await readAloud(7);
    await vi.waitFor(() => expect(player.status).toBe('idle'));
    expect(plays).toBe(2);
    expect(player.played).toEqual([0, 1]);
  });

  it("shows 'Audio Ready' when autoplay is refused, even when the query has not caught up", async () => {
    refuse = true;
    fake.readAloud = () => Promise.resolve({ ok: true, audio: audioOf(1) });
    await readAloud(8);
    await vi.waitFor(() => expect(view.localNotices.map((n) => n.title)).toContain('Audio Ready'));
    expect(player.status).toBe('paused');
    expect(player.blocked).toBe(true);
    expect(view.localNotices.find((n) => n.title === 'Audio Ready')?.text).toBe('Click here to play the audio response');
  });
});
