/**
 * One chunk of speech from the gateway (spec 000 sections 4 and 7, spec 001 section 4): POST /api/tts answers the
 * audio, JSON with an audioUrl, or 202 {status: 'pending', runId}; then GET /api/tts/status is asked every 3 s, at
 * most 60 times, until the audio is ready or fails; past that, 'Failed to generate audio - polling timeout'.
 * A cancellable pipeline (DESIGN rule 6): the signal stops the waiting at once.
 */
import { SPEECH_TEXT, TTS_MAX_POLLS, TTS_POLL_MS } from '../../../protocol/speech-catalogue';
import { TTS_COST_HEADER, TTS_PAYMENT_SOURCE_HEADER, type TtsRequest } from '../../../protocol/speech';

export type SpeechOutcome =
  | { ok: true; blob: Blob; cost: number; paymentSource: 'USD' | 'nano' | null }
  /** `insufficient`: the gateway's 402 (the balance cannot pay): generation is skipped, not failed. */
  | { ok: false; error: string; status: number | null; insufficient: boolean };

export interface SpeechClientOptions {
  signal?: AbortSignal;
  pollMs?: number;
  maxPolls?: number;
  fetch?: typeof fetch;
  /** The gateway's origin; audioUrls elsewhere are not fetched (the CSP allows only this origin). */
  origin?: string;
}

const isAudio = (res: Response): boolean => /^audio\/|^application\/ogg/.test(res.headers.get('content-type') ?? '');

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    }, { once: true });
  });
}

async function audioOf(res: Response): Promise<SpeechOutcome> {
  const blob = await res.blob();
  if (blob.size === 0) return { ok: false, error: SPEECH_TEXT.failed, status: res.status, insufficient: false };
  const cost = Number(res.headers.get(TTS_COST_HEADER) ?? '0');
  const source = res.headers.get(TTS_PAYMENT_SOURCE_HEADER);
  return { ok: true, blob, cost: Number.isFinite(cost) ? cost : 0, paymentSource: source === 'USD' || source === 'nano' ? source : null };
}

async function errorOf(res: Response): Promise<SpeechOutcome> {
  let message: string = SPEECH_TEXT.failed;
  try {
    const body = (await res.json()) as { message?: unknown; error?: unknown };
    if (typeof body.message === 'string') message = body.message;
    else if (typeof body.error === 'string') message = body.error;
  } catch {
    // no JSON body: the plain failure
  }
  return { ok: false, error: message, status: res.status, insufficient: res.status === 402 };
}

/** Fetches an audioUrl answer, if it is on the gateway's own origin. */
async function fromUrl(url: string, o: SpeechClientOptions, f: typeof fetch): Promise<SpeechOutcome> {
  const base = o.origin ?? (typeof location !== 'undefined' ? location.origin : 'http://localhost');
  const target = new URL(url, base);
  if (target.origin !== new URL(base).origin) return { ok: false, error: `${SPEECH_TEXT.failed}: the audio is on another site`, status: null, insufficient: false };
  const res = await f(target.href, { credentials: 'same-origin', signal: o.signal ?? null });
  return res.ok && isAudio(res) ? audioOf(res) : { ok: false, error: SPEECH_TEXT.failed, status: res.status, insufficient: false };
}

/** One chunk's speech. Never throws (but for an abort): a failure is an outcome with the message to show. */
export async function requestSpeech(req: TtsRequest, o: SpeechClientOptions = {}): Promise<SpeechOutcome> {
  const f = o.fetch ?? fetch;
  const signal = o.signal;
  try {
    const res = await f('/api/tts', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req), signal: signal ?? null });
    if (res.status === 202) {
      const pending = (await res.json()) as { runId?: unknown; model?: unknown };
      if (typeof pending.runId !== 'string') return { ok: false, error: SPEECH_TEXT.failed, status: 202, insufficient: false };
      return await poll(pending.runId, typeof pending.model === 'string' ? pending.model : req.model, o, f);
    }
    if (!res.ok) return await errorOf(res);
    if (isAudio(res)) return await audioOf(res);
    const body = (await res.json().catch(() => null)) as { audioUrl?: unknown } | null;
    if (typeof body?.audioUrl === 'string') return await fromUrl(body.audioUrl, o, f);
    return { ok: false, error: `${SPEECH_TEXT.failed}: the answer was not audio`, status: res.status, insufficient: false };
  } catch (e) {
    if (signal?.aborted) throw e;
    return { ok: false, error: `${SPEECH_TEXT.failed}: ${e instanceof Error ? e.message : String(e)}`, status: null, insufficient: false };
  }
}

async function poll(runId: string, model: string, o: SpeechClientOptions, f: typeof fetch): Promise<SpeechOutcome> {
  const pollMs = o.pollMs ?? TTS_POLL_MS;
  const maxPolls = o.maxPolls ?? TTS_MAX_POLLS;
  const url = `/api/tts/status?runId=${encodeURIComponent(runId)}&model=${encodeURIComponent(model)}`;
  for (let attempt = 0; attempt < maxPolls; attempt++) {
    await sleep(pollMs, o.signal);
    let res: Response;
    try {
      res = await f(url, { credentials: 'same-origin', signal: o.signal ?? null });
    } catch (e) {
      if (o.signal?.aborted) throw e;
      continue; // a network blip: ask again at the next tick
    }
    if (res.ok && isAudio(res)) return audioOf(res);
    if (res.status >= 500) continue; // a status endpoint that flaps: ask again
    if (!res.ok) return errorOf(res);
    const body = (await res.json().catch(() => null)) as { status?: unknown; audioUrl?: unknown; error?: unknown } | null;
    if (body?.status === 'completed' && typeof body.audioUrl === 'string') return fromUrl(body.audioUrl, o, f);
    if (body?.status === 'error') return { ok: false, error: typeof body.error === 'string' ? body.error : SPEECH_TEXT.failed, status: res.status, insufficient: false };
  }
  return { ok: false, error: SPEECH_TEXT.pollingTimeout, status: null, insufficient: false };
}

/** Spec 000 section 8: "a failed request returns null". The failure's message goes to `onError`. */
export async function generateSpeech(req: TtsRequest, o: SpeechClientOptions & { onError?: (error: string, insufficient: boolean) => void } = {}): Promise<Blob | null> {
  const r = await requestSpeech(req, o);
  if (r.ok) return r.blob;
  o.onError?.(r.error, r.insufficient);
  return null;
}
