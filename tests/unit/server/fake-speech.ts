/**
 * A fake speech server on loopback for tests: the OpenAI speech API (POST /v1/audio/speech, also what Kokoro-FastAPI
 * and LocalAI serve), the ElevenLabs API (POST /v1/text-to-speech/{voice}) and the OpenAI transcription API
 * (POST /v1/audio/transcriptions). Its audio is a real WAV (a tone whose length follows the text), so a browser can
 * play it. Behaviour on cue: a text containing FAIL_MARK answers 500; WRONG_TYPE_MARK answers 200 text/html;
 * SLOW_MARK waits `slowMs` first. Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wavFile } from '../../../src/server/speech/providers/tts-offline-job';

export const FAIL_MARK = 'zzfailzz';
export const WRONG_TYPE_MARK = 'zzhtmlzz';
export const SLOW_MARK = 'zzslowzz';

export interface SpeechCall {
  path: string;
  body: Record<string, unknown> | null;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

export interface FakeSpeech {
  url: string;
  calls: SpeechCall[];
  /** What the transcription endpoint answers next (default 'hello from the microphone'). */
  transcript: string;
  slowMs: number;
  close(): Promise<void>;
}

/** A mono 16-bit WAV tone, `ms` long at 8 kHz. */
export function toneWav(ms: number, freq = 440): Uint8Array {
  const rate = 8000;
  const samples = new Int16Array(Math.max(1, Math.round((rate * ms) / 1000)));
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(Math.sin((2 * Math.PI * freq * i) / rate) * 8000);
  return wavFile([samples], rate);
}

async function read(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startFakeSpeech(options: { msPerChar?: number } = {}): Promise<FakeSpeech> {
  const msPerChar = options.msPerChar ?? 2;
  const state: FakeSpeech = { url: '', calls: [], transcript: 'hello from the microphone', slowMs: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await read(req);
      const path = req.url ?? '';
      const isJson = (req.headers['content-type'] ?? '').includes('json');
      let body: Record<string, unknown> | null = null;
      if (isJson) {
        try {
          body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        } catch {
          body = null;
        }
      }
      state.calls.push({ path, body, headers: req.headers, bytes: raw.byteLength });
      if (path.startsWith('/v1/audio/transcriptions')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ text: state.transcript, duration: 2.5 }));
        return;
      }
      const text = String(body?.input ?? body?.text ?? '');
      if (text.includes(SLOW_MARK)) await sleep(state.slowMs);
      if (text.includes(FAIL_MARK)) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'synthetic failure' } }));
        return;
      }
      if (text.includes(WRONG_TYPE_MARK)) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>Gateway error</body></html>');
        return;
      }
      if (path.startsWith('/v1/audio/speech') || path.startsWith('/v1/text-to-speech/')) {
        const wav = toneWav(Math.min(3000, 200 + text.length * msPerChar));
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(wav.byteLength) });
        res.end(wav);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
    })();
  });
  // Idle keep-alive sockets stay open for the whole test: with Node's 5 s default, a busy machine let the client
  // reuse a socket the server was closing (ECONNRESET on the next request, a failure no real provider causes).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${addr.port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return state;
}

/** PARLEY_TTS_PROVIDERS for a fake server: Kokoro and tts-1 as OpenAI-compatible, ElevenLabs as ElevenLabs. */
export function fakeSpeechProviders(url: string, options: { freeKokoro?: boolean } = {}): string {
  return JSON.stringify([
    { name: 'fake-openai', kind: 'openai', url: `${url}/v1`, models: { 'Kokoro-82m': 'kokoro', 'tts-1': 'tts-1', 'gpt-4o-mini-tts': 'gpt-4o-mini-tts' }, ...(options.freeKokoro ? { pricing: { 'Kokoro-82m': '0' } } : {}) },
    { name: 'fake-eleven', kind: 'elevenlabs', url, key: 'test-key', models: { 'Elevenlabs-Turbo-V2.5': 'eleven_turbo_v2_5' } },
  ]);
}

export function fakeTranscriber(url: string, pricePerMinute = '0'): string {
  return JSON.stringify({ name: 'fake-whisper', url: `${url}/v1/audio/transcriptions`, model: 'whisper-1', pricePerMinute });
}
