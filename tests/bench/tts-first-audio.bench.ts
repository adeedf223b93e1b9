/**
 * TTS first-audio latency for a 10,000-character reply (issue 9): the engine's pipeline splits the reply into chunks
 * of at most 3900 characters on sentence boundaries (src/worker/rooms/speech/text.ts) and asks POST /api/tts for
 * them in order (tts-client.ts), so playback can start when the first chunk arrives. Provider: the built-in offline
 * voice (eSpeak NG in the gateway's worker thread), real synthesis work with no network.
 *
 * The first chunk is at most 1000 characters (text.ts speechChunks), the others 3900.
 *
 * Figures, each against a baseline of the same run:
 *  - time to the first chunk playable vs the whole reply (every chunk made): how early the audio starts;
 *  - time to the first chunk playable vs one request for the whole unsplit text (what a client that does not
 *    chunk waits before it can play anything);
 *  - the first chunk short vs every chunk 3900 (what the short first chunk buys).
 */
import { startGateway } from '../../src/server/start';
import { splitSpeech, speechChunks } from '../../src/worker/rooms/speech/text';
import { requestSpeech } from '../../src/worker/rooms/speech/tts-client';
import { size } from './smoke';
import type { Bench } from './types';

const ROUNDS = size(3, 1);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function reply(chars: number): string {
  const sentences = ['The river bends twice before it reaches the old mill by the bridge.', 'Nobody remembers who built the mill, but everyone knows its bell.', 'On quiet evenings the water carries the sound far across the fields.'];
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${sentences[i % 3]} `;
  return out.slice(0, chars).replace(/\s+\S*$/, '.');
}

const bench: Bench = async () => {
  const gw = await startGateway({ port: 0, memory: true, inheritEnv: false, clientDir: null, log: () => undefined, env: { PARLEY_TTS_SYNC_MS: '300000', PARLEY_COSTLY_RATE_BURST: '100000' } });
  const session = await fetch(`${gw.url}/auth/local-session`);
  const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const f = ((input: RequestInfo | URL, init?: RequestInit) => fetch(`${gw.url}${String(input)}`, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie } })) as typeof fetch;
  const text = reply(size(10_000, 1_500));
  const model = 'parley-offline-voice';
  const speak = async (t: string) => {
    const r = await requestSpeech({ text: t, model, voice: 'en-us' }, { fetch: f, origin: gw.url });
    if (!r.ok) throw new Error(r.error);
    return r.blob.size;
  };
  await speak('Warm up.');
  const first: number[] = [];
  const even: number[] = [];
  const whole: number[] = [];
  const unsplit: number[] = [];
  let chunks = 0;
  /** Asks for the chunks in order: ms to the first, ms to all. */
  const run = async (parts: string[]): Promise<[number, number]> => {
    const t0 = performance.now();
    let firstMs = 0;
    for (let i = 0; i < parts.length; i++) {
      await speak(parts[i] as string);
      if (i === 0) firstMs = performance.now() - t0;
    }
    return [firstMs, performance.now() - t0];
  };
  for (let round = 0; round < ROUNDS; round++) {
    const parts = speechChunks(text);
    chunks = parts.length;
    const [f1, all] = await run(parts);
    first.push(f1);
    whole.push(all);
    even.push((await run(splitSpeech(text)))[0]);
    const t1 = performance.now();
    await speak(text);
    unsplit.push(performance.now() - t1);
  }
  await gw.close();
  const v = median(first);
  const w = median(whole);
  const u = median(unsplit);
  const e = median(even);
  return [
    { name: 'TTS first chunk playable vs whole reply (10,000 chars, offline voice)', unit: 'ms', value: v, baseline: w, ratio: v / w, target: 'ratio <= 0.5', pass: v / w <= 0.5, notes: `${chunks} chunks, median of ${ROUNDS}` },
    { name: 'TTS first chunk playable vs one unsplit request (10,000 chars)', unit: 'ms', value: v, baseline: u, ratio: v / u, target: 'ratio <= 0.5', pass: v / u <= 0.5, notes: `median of ${ROUNDS}` },
    { name: 'TTS first chunk playable: short first chunk vs even 3900-character chunks', unit: 'ms', value: v, baseline: e, ratio: v / e, target: 'ratio < 1', pass: v / e < 1, notes: 'first chunk at most 1000 characters, then 3900' },
  ];
};
export default bench;
