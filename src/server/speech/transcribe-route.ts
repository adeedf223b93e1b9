/**
 * Voice mode's transcription (docs/protocol.md): GET /api/transcribe/config says whether this gateway can
 * transcribe; POST /api/transcribe (the recording as the body, Content-Type audio/*; ?language= and ?requestId=) answers {text, duration,
 * cost, paymentSource} through the configured OpenAI-compatible transcription API (OpenAI, whisper.cpp's server,
 * LocalAI). Paid by the minute through a hold: the most the recording can last is reserved (a WAV's own length,
 * else its size at 16 kbit/s), the provider's reported duration is settled.
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { TRANSCRIBE_MAX_BYTES, type TranscribeConfig, type TranscribeResponse } from '../../protocol/speech';
import { type RouteContext } from '../context';
import { jsonError, type AppEnv } from '../http';
import { isAudioContentType } from '../guards/cross-site';
import { ceilDiv } from '../money/amounts';
import { refusedHold, reserveSpeech, speechCharge } from './billing';
import type { SpeechCatalogue } from './catalogue';

/** The lowest bit rate a recording is assumed to have when its length is not in its header: 16 kbit/s. */
const MIN_BYTES_PER_SECOND = 2000;
const TIMEOUT_MS = 120_000;

/** Seconds of a PCM WAV from its header, or null when it is not one. */
export function wavSeconds(b: Uint8Array): number | null {
  if (b.byteLength < 44) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const tag = (at: number): string => String.fromCharCode(b[at] ?? 0, b[at + 1] ?? 0, b[at + 2] ?? 0, b[at + 3] ?? 0);
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') return null;
  let at = 12;
  let byteRate = 0;
  while (at + 8 <= b.byteLength) {
    const id = tag(at);
    const size = v.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 16 <= b.byteLength) byteRate = v.getUint32(at + 16, true);
    if (id === 'data') return byteRate > 0 ? Math.min(size, b.byteLength - at - 8) / byteRate : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

/** Micro-dollars for `seconds` of audio at `microPerMinute`, rounded up. */
export function transcriptionCostMicro(microPerMinute: bigint, seconds: number): bigint {
  return ceilDiv(microPerMinute * BigInt(Math.ceil(seconds * 1000)), 60_000n);
}

export function registerTranscribeRoutes(app: Hono<AppEnv>, ctx: RouteContext, catalogue: SpeechCatalogue): void {
  app.get('/api/transcribe/config', (c) => {
    const t = catalogue.transcriber;
    const body: TranscribeConfig = { available: t !== null, model: t?.config.model ?? null, maxBytes: TRANSCRIBE_MAX_BYTES };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });

  app.post('/api/transcribe', async (c) => {
    const t = catalogue.transcriber;
    if (!t) return jsonError(c, 503, 'TRANSCRIPTION_UNAVAILABLE', 'No transcription service is configured on this server');
    const declared = c.req.header('content-length');
    if (declared === undefined) return jsonError(c, 411, 'LENGTH_REQUIRED', 'Send the recording with a Content-Length');
    if (!(Number(declared) <= TRANSCRIBE_MAX_BYTES)) return jsonError(c, 413, 'PAYLOAD_TOO_LARGE', `The recording is larger than ${TRANSCRIBE_MAX_BYTES} bytes`);
    const type = c.req.header('content-type');
    if (!isAudioContentType(type)) return jsonError(c, 415, 'UNSUPPORTED_MEDIA_TYPE', `A recording must be sent as audio (Content-Type audio/...), not ${type ?? 'nothing'}`);
    const mime = (type?.split(';')[0] ?? '').trim().toLowerCase();
    const language = c.req.query('language');
    const requestId = c.req.query('requestId');
    if (language !== undefined && !/^[a-z]{2,3}(-[A-Za-z]{2})?$/.test(language)) return jsonError(c, 400, 'BAD_REQUEST', 'language must be an ISO 639-1 code like en');
    if (requestId !== undefined && !/^[A-Za-z0-9_-]{8,100}$/.test(requestId)) return jsonError(c, 400, 'BAD_REQUEST', 'requestId must be 8 to 100 letters, digits, - or _');
    const audio = new Uint8Array(await c.req.arrayBuffer());
    if (audio.byteLength === 0) return jsonError(c, 400, 'BAD_REQUEST', 'The recording is empty');
    const sessionId = c.get('sessionId');
    const longest = wavSeconds(audio) ?? audio.byteLength / MIN_BYTES_PER_SECOND;
    const hold = transcriptionCostMicro(t.config.microPerMinute, longest);
    const key = `transcribe:${sessionId}:${requestId ?? randomBytes(12).toString('base64url')}`;
    const reserved = await reserveSpeech(ctx.ledger, sessionId, { key, maxUsdMicro: hold, note: `transcribe ${t.config.model}` }, ctx.log);
    if (!reserved.ok) return refusedHold(c, reserved, 'transcription');
    const name = `recording.${(mime.split('/')[1] ?? 'webm').replace(/^(x-)?wav$/, 'wav').replace(/^mpeg$/, 'mp3')}`;
    const r = await t.provider
      .transcribe({ model: t.config.model, audio, mime, filename: name, ...(language !== undefined ? { language } : {}) }, AbortSignal.timeout(TIMEOUT_MS))
      .catch((e: unknown) => ({ ok: false as const, status: 502, code: 'PROVIDER_ERROR', message: e instanceof Error ? e.message : String(e) }));
    if (!r.ok) {
      await reserved.hold?.release();
      return jsonError(c, (r.status >= 500 ? 502 : 400) as 400, r.code, r.message);
    }
    const seconds = r.duration ?? longest;
    const cost = transcriptionCostMicro(t.config.microPerMinute, Math.min(seconds, longest));
    const s = speechCharge((await reserved.hold?.settle(cost)) ?? null);
    const body: TranscribeResponse = { text: r.text, duration: r.duration, cost: s.cost, paymentSource: s.paymentSource };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });
}
