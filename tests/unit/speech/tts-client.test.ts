import { describe, expect, it } from 'vitest';
import { SPEECH_TEXT, TTS_MAX_POLLS } from '../../../src/protocol/speech-catalogue';
import { generateSpeech, requestSpeech } from '../../../src/worker/rooms/speech/tts-client';

const ORIGIN = 'http://app.test';
const audio = (bytes = 4) => new Response(new Uint8Array(bytes), { status: 200, headers: { 'content-type': 'audio/mpeg', 'X-Parley-Cost': '0.002', 'X-Parley-Payment-Source': 'USD' } });
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A fake gateway: the POST answer, then the status answers in order (the last repeats). */
function gateway(post: () => Response, statuses: (() => Response)[]) {
  const calls: string[] = [];
  const f = (async (input: RequestInfo | URL) => {
    const url = String(input);
    calls.push(url);
    if (url === '/api/tts') return post();
    const next = statuses[Math.min(calls.filter((c) => c.startsWith('/api/tts/status')).length - 1, statuses.length - 1)];
    return (next as () => Response)();
  }) as typeof fetch;
  return { f, calls };
}

const req = { text: 'Hello', model: 'tts-1', voice: 'alloy' };

describe('requestSpeech', () => {
  it('takes audio bytes with their cost', async () => {
    const g = gateway(() => audio(8), []);
    const r = await requestSpeech(req, { fetch: g.f, origin: ORIGIN });
    expect(r).toMatchObject({ ok: true, cost: 0.002, paymentSource: 'USD' });
    if (r.ok) expect(r.blob.size).toBe(8);
  });

  it('polls a 202 until the audio is ready', async () => {
    const g = gateway(() => json({ status: 'pending', runId: 'run-123456', model: 'tts-1' }, 202), [() => json({ status: 'pending' }), () => json({ status: 'pending' }), () => audio()]);
    const r = await requestSpeech(req, { fetch: g.f, pollMs: 1, origin: ORIGIN });
    expect(r.ok).toBe(true);
    expect(g.calls.filter((c) => c.startsWith('/api/tts/status?runId=run-123456&model=tts-1')).length).toBe(3);
  });

  it('keeps asking through a flapping status endpoint, then follows a same-origin audioUrl', async () => {
    const g = gateway(() => json({ status: 'pending', runId: 'run-flap-01', model: 'tts-1' }, 202), [() => json({ error: 'x' }, 503), () => json({ status: 'completed', audioUrl: '/api/tts/audio/1' })]);
    const f = (async (input: RequestInfo | URL, init?: RequestInit) => (String(input).endsWith('/api/tts/audio/1') ? audio() : g.f(input, init))) as typeof fetch;
    expect((await requestSpeech(req, { fetch: f, pollMs: 1, origin: ORIGIN })).ok).toBe(true);
  });

  it('gives up after 60 polls with the spec message', async () => {
    const g = gateway(() => json({ status: 'pending', runId: 'run-slow-01', model: 'tts-1' }, 202), [() => json({ status: 'pending' })]);
    const r = await requestSpeech(req, { fetch: g.f, pollMs: 0, origin: ORIGIN });
    expect(r).toEqual({ ok: false, error: SPEECH_TEXT.pollingTimeout, status: null, insufficient: false });
    expect(TTS_MAX_POLLS).toBe(60);
    expect(g.calls.filter((c) => c.startsWith('/api/tts/status')).length).toBe(60);
  });

  it('a failed request returns null; a 402 is reported as insufficient balance', async () => {
    const errors: [string, boolean][] = [];
    const onError = (e: string, insufficient: boolean) => errors.push([e, insufficient]);
    expect(await generateSpeech(req, { fetch: gateway(() => json({ error: 'PROVIDER_ERROR', message: 'boom' }, 502), []).f, onError })).toBeNull();
    expect(await generateSpeech(req, { fetch: gateway(() => json({ error: 'INSUFFICIENT_BALANCE', message: 'Insufficient balance' }, 402), []).f, onError })).toBeNull();
    expect(await generateSpeech(req, { fetch: gateway(() => new Response('<html>', { status: 200, headers: { 'content-type': 'text/html' } }), []).f, onError })).toBeNull();
    expect(errors).toEqual([['boom', false], ['Insufficient balance', true], [`${SPEECH_TEXT.failed}: the answer was not audio`, false]]);
  });

  it('a status error ends the polling with its message; an audioUrl on another site is not fetched', async () => {
    const failed = gateway(() => json({ status: 'pending', runId: 'run-err-001', model: 'tts-1' }, 202), [() => json({ status: 'error', error: 'voice unavailable' })]);
    expect(await requestSpeech(req, { fetch: failed.f, pollMs: 1, origin: ORIGIN })).toMatchObject({ ok: false, error: 'voice unavailable' });
    const offsite = gateway(() => json({ audioUrl: 'https://cdn.example/a.mp3' }), []);
    expect((await requestSpeech(req, { fetch: offsite.f, origin: ORIGIN })).ok).toBe(false);
    expect(offsite.calls).toEqual(['/api/tts']);
  });
});
