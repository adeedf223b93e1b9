import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, ModelsResponse } from '../../../src/protocol/api';
import { TTS_COST_HEADER, type TtsPendingBody, type TtsStatusBody } from '../../../src/protocol/speech';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { SpeechCatalogue } from '../../../src/server/speech/catalogue';
import { loadSpeechConfig } from '../../../src/server/speech/config';
import { TtsJobs } from '../../../src/server/speech/jobs';
import { FAIL_MARK, fakeSpeechProviders, fakeTranscriber, SLOW_MARK, startFakeSpeech, toneWav, WRONG_TYPE_MARK, type FakeSpeech } from './fake-speech';
import { newSession } from './helpers';

let db: Db;
let fake: FakeSpeech;
let ledger: Ledger;
let app: ReturnType<typeof createApp>;
let jobs: TtsJobs;
let speech: SpeechCatalogue;

beforeAll(async () => {
  db = await openDatabase({ kind: 'memory' });
  fake = await startFakeSpeech();
  const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', PARLEY_COSTLY_RATE_BURST: '10000' });
  const speechConfig = loadSpeechConfig({ PARLEY_TTS_PROVIDERS: fakeSpeechProviders(fake.url), PARLEY_TRANSCRIBE_PROVIDER: fakeTranscriber(fake.url, '0.006'), PARLEY_TTS_SYNC_MS: '2000' });
  speech = new SpeechCatalogue(speechConfig);
  await speech.offline.warm();
  ledger = new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
  jobs = new TtsJobs({ db, ledger, catalogue: speech, log: () => undefined, syncWaitMs: speechConfig.syncWaitMs, providerTimeoutMs: 10_000, workerMs: 50 });
  const catalogue = await Catalogue.create([], { offlineTokenDelayMs: 0, log: () => undefined });
  app = createApp({ db, catalogue, ledger, settings: { stallMs: config.stallMs, cookieSecure: false, maxBodyBytes: config.maxBodyBytes, guards: config.guards }, log: () => undefined, speech: { catalogue: speech, jobs } });
});
afterAll(async () => {
  await jobs?.stop();
  await speech?.close();
  await fake?.close();
  await db?.close();
});

async function funded(usdMicro = 1_000_000n) {
  const s = await newSession(app);
  if (usdMicro > 0n) await ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro });
  return s;
}

function tts(cookie: string, body: Record<string, unknown>) {
  return app.request('/api/tts', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const balance = async (id: string) => (await ledger.balance(id)).usdMicro;

/**
 * The audio a TTS answer leads to: the answer itself, or, when the job outlived the sync window (202, which the
 * offline voice does on a busy machine), the status call's answer once the job is done.
 */
async function audioOf(res: Response, cookie: string): Promise<{ res: Response; runId: string | null }> {
  if (res.status !== 202) return { res, runId: null };
  const { runId, model } = (await res.json()) as TtsPendingBody;
  for (let i = 0; i < 1200; i++) {
    const r = await app.request(`/api/tts/status?runId=${runId}&model=${model}`, { headers: { cookie } });
    if (r.headers.get('content-type')?.startsWith('audio/')) return { res: r, runId };
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`job ${runId} did not finish`);
}

describe('POST /api/tts', () => {
  it('lists the offered speech models with the offline voice, labelled as not a model', async () => {
    const s = await newSession(app);
    const res = await app.request('/api/models', { headers: { cookie: s.cookie } });
    const body = (await res.json()) as ModelsResponse;
    const audio = body.models.filter((m) => m.modality === 'audio');
    expect(audio.map((m) => m.id)).toEqual(['tts-1', 'gpt-4o-mini-tts', 'Kokoro-82m', 'Elevenlabs-Turbo-V2.5', 'parley-offline-voice']);
    const offline = audio.find((m) => m.id === 'parley-offline-voice');
    expect(offline?.offline).toBe(true);
    expect(offline?.free).toBe(true);
    expect(offline?.name).toContain('not an AI model');
  });

  it('refuses an unknown model, a catalogue model no provider serves, and an unknown voice', async () => {
    const s = await funded();
    const unknown = await tts(s.cookie, { text: 'Hello', model: 'no-such-tts' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as ErrorBody).error).toBe('UNKNOWN_MODEL');
    const unserved = await tts(s.cookie, { text: 'Hello', model: 'gemini-2.5-pro-preview-tts' });
    expect(unserved.status).toBe(400);
    expect(((await unserved.json()) as ErrorBody).error).toBe('MODEL_UNAVAILABLE');
    const voice = await tts(s.cookie, { text: 'Hello', model: 'tts-1', voice: 'Rachel' });
    expect(voice.status).toBe(400);
    expect(((await voice.json()) as ErrorBody).error).toBe('UNKNOWN_VOICE');
    expect(await balance(s.data.id)).toBe(1_000_000n);
  });

  it('refuses text over the model limit (4096 for OpenAI, 10000 for Kokoro) before any provider call or charge', async () => {
    const s = await funded();
    const before = fake.calls.length;
    const openai = await tts(s.cookie, { text: 'a'.repeat(4097), model: 'tts-1' });
    expect(openai.status).toBe(400);
    const body = (await openai.json()) as ErrorBody;
    expect(body.error).toBe('TEXT_TOO_LONG');
    expect(body.message).toContain('at most 4096');
    const kokoro = await tts(s.cookie, { text: 'a'.repeat(10_001), model: 'Kokoro-82m' });
    expect(kokoro.status).toBe(400);
    expect(fake.calls.length).toBe(before);
    expect(await balance(s.data.id)).toBe(1_000_000n);
    // 10,000 emoji are 20,000 UTF-16 units but 10,000 characters: within Kokoro's limit, priced as 10,000.
    const emoji = await tts(s.cookie, { text: '🙂'.repeat(10_000), model: 'Kokoro-82m' });
    expect(emoji.status).toBe(200);
    expect(emoji.headers.get(TTS_COST_HEADER)).toBe('0.01');
  });

  it('answers audio and charges characters x cost per 1000 once, through a hold', async () => {
    const s = await funded();
    const res = await tts(s.cookie, { text: 'x'.repeat(1000), model: 'Kokoro-82m', voice: 'af_bella', speed: 1.5, requestId: 'req-kokoro-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(String.fromCharCode(...bytes.slice(0, 4))).toBe('RIFF');
    expect(res.headers.get(TTS_COST_HEADER)).toBe('0.001');
    expect(await balance(s.data.id)).toBe(1_000_000n - 1000n);
    const call = fake.calls.at(-1);
    expect(call?.body).toMatchObject({ model: 'kokoro', voice: 'af_bella', speed: 1.5, input: 'x'.repeat(1000) });
    // The same request again (a retry) gets the same audio, not made or charged twice; another text under it is 409.
    const calls = fake.calls.length;
    const retry = await tts(s.cookie, { text: 'x'.repeat(1000), model: 'Kokoro-82m', voice: 'af_bella', speed: 1.5, requestId: 'req-kokoro-1' });
    expect(retry.status).toBe(200);
    expect(new Uint8Array(await retry.arrayBuffer())).toEqual(bytes);
    expect(retry.headers.get(TTS_COST_HEADER)).toBe('0.001');
    expect(fake.calls.length).toBe(calls);
    const again = await tts(s.cookie, { text: 'y'.repeat(1000), model: 'Kokoro-82m', voice: 'af_bella', speed: 1.5, requestId: 'req-kokoro-1' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as ErrorBody).error).toBe('REQUEST_ID_REUSED');
    expect(await balance(s.data.id)).toBe(1_000_000n - 1000n);
  });

  it('skips a session without balance with 402 and the required amount', async () => {
    const s = await newSession(app);
    const res = await tts(s.cookie, { text: 'Hello there', model: 'tts-1' });
    expect(res.status).toBe(402);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toBe('INSUFFICIENT_BALANCE');
    expect(body.requiredBalance).toBeDefined();
  });

  it('the offline voice speaks with no key, free, as WAV', async () => {
    const s = await newSession(app);
    const { res } = await audioOf(await tts(s.cookie, { text: 'Hello from the built-in voice.', model: 'parley-offline-voice', voice: 'en-gb' }), s.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.byteLength).toBeGreaterThan(22_050); // more than half a second of 16-bit speech
    expect(res.headers.get(TTS_COST_HEADER)).toBe('0');
  });

  it('a provider answering the wrong content type is refused and nothing is charged', async () => {
    const s = await funded();
    const res = await tts(s.cookie, { text: `Say ${WRONG_TYPE_MARK} please`, model: 'tts-1' });
    expect(res.status).toBe(502);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toBe('PROVIDER_BAD_AUDIO');
    expect(body.message).toContain('text/html');
    expect(await balance(s.data.id)).toBe(1_000_000n);
    const failed = await tts(s.cookie, { text: `Say ${FAIL_MARK}`, model: 'tts-1' });
    expect(failed.status).toBe(502);
    expect(await balance(s.data.id)).toBe(1_000_000n);
  });

  it('ElevenLabs gets its voice id and the sliders, similarity_boost defaulting to 0.75', async () => {
    const s = await funded();
    const res = await tts(s.cookie, { text: 'Hello', model: 'Elevenlabs-Turbo-V2.5', voice: 'Rachel', stability: 0.3 });
    expect(res.status).toBe(200);
    const call = fake.calls.at(-1);
    expect(call?.path).toBe('/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=mp3_44100_128');
    expect(call?.headers['xi-api-key']).toBe('test-key');
    expect(call?.body).toMatchObject({ text: 'Hello', model_id: 'eleven_turbo_v2_5', voice_settings: { stability: 0.3, similarity_boost: 0.75, style: 0, speed: 1 } });
  });
});

describe('202 jobs', () => {
  it('a slow job answers 202 with runId, then the status call gives the audio; charged once', async () => {
    const s = await funded();
    fake.slowMs = 3000;
    const res = await tts(s.cookie, { text: `A slow ${SLOW_MARK} chunk`, model: 'tts-1' });
    expect(res.status).toBe(202);
    const pending = (await res.json()) as TtsPendingBody;
    expect(pending).toMatchObject({ status: 'pending', model: 'tts-1' });
    const status = () => app.request(`/api/tts/status?runId=${pending.runId}&model=tts-1`, { headers: { cookie: s.cookie } });
    const first = await status();
    expect(((await first.json()) as TtsStatusBody).status).toBe('pending');
    let done: Response | null = null;
    for (let i = 0; i < 100 && !done; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await status();
      if (r.headers.get('content-type')?.startsWith('audio/')) done = r;
    }
    expect(done?.status).toBe(200);
    // tts-1: $0.015 per 1000 characters = 15 micro-dollars a character.
    const charged = BigInt(`A slow ${SLOW_MARK} chunk`.length * 15);
    expect(await balance(s.data.id)).toBe(1_000_000n - charged);
    // Another session cannot read it.
    const other = await newSession(app);
    expect((await app.request(`/api/tts/status?runId=${pending.runId}`, { headers: { cookie: other.cookie } })).status).toBe(404);
  });

  it('a job whose gateway died (lease run out) is claimed by the runner and completed', async () => {
    const s = await funded();
    const input = { model: 'tts-1', job: { model: 'tts-1', text: 'Left behind', voice: 'alloy', speed: 1 }, chars: 11, costUsdMicro: '165' };
    await ledger.reserve(s.data.id, { key: 'tts:dead:1', maxUsdMicro: 165n, ttlMs: 600_000 });
    await db.query(
      `INSERT INTO tts_jobs (run_id, session_id, model, input, chars, cost_usd_micro, hold_key, status, owner, lease_until)
       VALUES ('deadjob00001', $1, 'tts-1', $2::text::jsonb, 11, 165, 'tts:dead:1', 'running', 'gone', now() - interval '1 second')`,
      [s.data.id, JSON.stringify(input)],
    );
    expect(await jobs.tick()).toBe(1);
    let audio = false;
    for (let i = 0; i < 50 && !audio; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const r = await app.request('/api/tts/status?runId=deadjob00001', { headers: { cookie: s.cookie } });
      audio = r.headers.get('content-type')?.startsWith('audio/') === true;
    }
    expect(audio).toBe(true);
    expect(await balance(s.data.id)).toBe(1_000_000n - 165n);
    expect(await jobs.tick()).toBe(0);
  });

  it('a retry of a slow job under its requestId gets the same runId, while pending and once done; the free offline voice too', async () => {
    const s = await funded();
    fake.slowMs = 3000;
    const body = { text: `Retried ${SLOW_MARK} chunk`, model: 'tts-1', requestId: 'req-slow-retry-1' };
    const [a, b] = await Promise.all([tts(s.cookie, body), tts(s.cookie, body)]);
    const runs = (await Promise.all([a.json(), b.json()])) as TtsPendingBody[];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(runs[1]?.runId).toBe(runs[0]?.runId);
    let done: Response | null = null;
    for (let i = 0; i < 100 && !done; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await tts(s.cookie, body);
      if (r.headers.get('content-type')?.startsWith('audio/')) done = r;
    }
    expect(done?.status).toBe(200);
    expect(await balance(s.data.id)).toBe(1_000_000n - BigInt(body.text.length * 15));
    expect(fake.calls.filter((c) => (c.body as { input?: string }).input === body.text)).toHaveLength(1);

    const free = { text: 'Free and retried', model: 'parley-offline-voice', requestId: 'req-free-retry-1' };
    const [x, y] = await Promise.all([tts(s.cookie, free), tts(s.cookie, free)]);
    // One of the two makes it, or both wait on one job (202, on a busy machine); the other names the same job.
    const [first, second] = await Promise.all([audioOf(x, s.cookie), audioOf(y, s.cookie)]);
    if (first.runId !== null && second.runId !== null) expect(second.runId).toBe(first.runId);
    expect(first.res.status).toBe(200);
    expect(second.res.status).toBe(200);
    expect(new Uint8Array(await second.res.arrayBuffer())).toEqual(new Uint8Array(await first.res.arrayBuffer()));
  });

  it('refuses a malformed runId', async () => {
    const s = await newSession(app);
    const res = await app.request('/api/tts/status?runId=../../etc', { headers: { cookie: s.cookie } });
    expect(res.status).toBe(400);
  });
});

describe('POST /api/transcribe', () => {
  const post = (cookie: string, bytes: Uint8Array, type: string, query = '') =>
    app.request(`/api/transcribe${query}`, { method: 'POST', headers: { cookie, 'content-type': type, 'content-length': String(bytes.byteLength) }, body: bytes as Uint8Array<ArrayBuffer> });

  it('transcribes through the configured provider, charged by the minute it reports', async () => {
    const s = await funded();
    const cfg = await app.request('/api/transcribe/config', { headers: { cookie: s.cookie } });
    expect(await cfg.json()).toMatchObject({ available: true, model: 'whisper-1' });
    fake.transcript = 'what is the weather like';
    const res = await post(s.cookie, toneWav(3000), 'audio/wav', '?language=en');
    expect(res.status).toBe(200);
    // 2.5 s reported at $0.006 a minute = 250 micro-dollars.
    expect(await res.json()).toMatchObject({ text: 'what is the weather like', duration: 2.5, cost: 0.00025, paymentSource: 'USD' });
    expect(await balance(s.data.id)).toBe(1_000_000n - 250n);
    expect(fake.calls.at(-1)?.path).toBe('/v1/audio/transcriptions');
  });

  it('refuses a body that is not audio, and a form post (no preflight) from a browser', async () => {
    const s = await funded();
    expect((await post(s.cookie, new TextEncoder().encode('<html>'), 'text/html')).status).toBe(415);
    const form = await post(s.cookie, toneWav(100), 'multipart/form-data; boundary=x');
    expect(form.status).toBe(415);
    expect(await balance(s.data.id)).toBe(1_000_000n);
  });
});
