/**
 * POST /api/tts and GET /api/tts/status (spec 000 and 001 section 7). One chunk of text in; the audio bytes out, or
 * 202 {status: 'pending', runId, model} when it takes longer than the sync wait (./jobs.ts), or an error body
 * {error, message}. The model must be one this gateway offers (./catalogue.ts), the voice one of the model's, the
 * text within the model's limit (10000 or 4096 characters, spec 001 section 5). Cost = characters x cost per 1000.
 */
import type { Context, Hono } from 'hono';
import { speechChars, speechCostMicro, speechModel, speechSpeed, speechVoice, ELEVENLABS_DEFAULTS, type SpeechModel } from '../../protocol/speech-catalogue';
import { TTS_COST_HEADER, TTS_PAYMENT_SOURCE_HEADER, TtsRequestSchema, TtsStatusQuerySchema, type TtsRequest } from '../../protocol/speech';
import { type RouteContext } from '../context';
import { describeIssues, jsonError, readJson, type AppEnv } from '../http';
import type { SpeechJob } from './providers/types';
import { refusedHold } from './billing';
import type { SpeechCatalogue, SpeechEntry } from './catalogue';
import type { Made, TtsJobs } from './jobs';

const MAX_BODY_BYTES = 128 * 1024;

function audioResponse(audio: Uint8Array, mime: string, cost: number, paymentSource: string | null): Response {
  const headers: Record<string, string> = { 'content-type': mime, 'content-length': String(audio.byteLength), 'cache-control': 'no-store', [TTS_COST_HEADER]: String(cost) };
  if (paymentSource) headers[TTS_PAYMENT_SOURCE_HEADER] = paymentSource;
  return new Response(audio as Uint8Array<ArrayBuffer>, { status: 200, headers });
}

/** The provider's job for a valid request. */
function providerJob(entry: SpeechEntry, req: TtsRequest, voiceId: string, text: string): SpeechJob {
  const m: SpeechModel = entry.model;
  const voice = speechVoice(m, voiceId);
  const job: SpeechJob = { model: entry.upstreamModel, text, voice: voice?.providerVoiceId ?? voiceId, speed: m.supportsSpeed ? speechSpeed(m, req.speed) : null };
  if (m.provider === 'elevenlabs') {
    job.voiceSettings = {
      stability: req.stability ?? ELEVENLABS_DEFAULTS.stability,
      similarity_boost: req.similarity_boost ?? ELEVENLABS_DEFAULTS.similarity_boost,
      style: req.style ?? ELEVENLABS_DEFAULTS.style,
    };
  }
  if (m.additionalParams?.instructions && req.instructions?.trim()) job.instructions = req.instructions.trim();
  return job;
}

function made(c: Context, m: Made): Response {
  if (m.ok) return audioResponse(m.audio, m.mime, m.cost, m.paymentSource);
  return jsonError(c, (m.status >= 400 && m.status < 600 ? m.status : 502) as 400, m.code, m.message);
}

export function registerTtsRoutes(app: Hono<AppEnv>, ctx: RouteContext, catalogue: SpeechCatalogue, jobs: TtsJobs): void {
  app.post('/api/tts', async (c) => {
    const body = await readJson(c, MAX_BODY_BYTES);
    if (!body.ok) return body.response;
    const parsed = TtsRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(parsed.error.issues));
    const req = parsed.data;
    const entry = catalogue.get(req.model);
    if (!entry) {
      if (speechModel(req.model)) return jsonError(c, 400, 'MODEL_UNAVAILABLE', `${req.model} is not offered by this server: no speech provider is configured for it`);
      return jsonError(c, 400, 'UNKNOWN_MODEL', `Unknown text-to-speech model: ${req.model}`);
    }
    const m = entry.model;
    const text = req.text.trim();
    if (text === '') return jsonError(c, 400, 'BAD_REQUEST', 'Text is required');
    const chars = speechChars(text);
    if (chars > m.maxChars) return jsonError(c, 400, 'TEXT_TOO_LONG', `The text is ${chars} characters; ${m.displayName} takes at most ${m.maxChars}`);
    const voiceId = req.voice ?? m.defaultSettings.voice;
    if (!speechVoice(m, voiceId)) return jsonError(c, 400, 'UNKNOWN_VOICE', `${m.displayName} has no voice '${voiceId}'`);
    const cost = speechCostMicro({ costPerThousandChars: entry.costPerThousandChars }, chars);
    const out = await jobs.submit(c.get('sessionId'), { model: m.id, job: providerJob(entry, req, voiceId, text), chars, costUsdMicro: cost.toString() }, req.requestId ?? null);
    if (out.kind === 'reused') return jsonError(c, 409, 'REQUEST_ID_REUSED', 'This requestId was already used for another text, model or voice; send a new requestId for a new request');
    if (out.kind === 'short' || out.kind === 'used') return refusedHold(c, { ok: false, ...out }, `${m.displayName} (${chars} characters)`);
    if (out.kind === 'pending') {
      c.header('Cache-Control', 'no-store');
      return c.json({ status: 'pending', runId: out.runId, model: m.id }, 202);
    }
    return made(c, out.made);
  });

  app.get('/api/tts/status', async (c) => {
    const q = TtsStatusQuerySchema.safeParse({ runId: c.req.query('runId'), model: c.req.query('model') });
    if (!q.success) return jsonError(c, 400, 'BAD_REQUEST', describeIssues(q.error.issues));
    const s = await jobs.status(c.get('sessionId'), q.data.runId);
    c.header('Cache-Control', 'no-store');
    switch (s.kind) {
      case 'unknown':
        return jsonError(c, 404, 'NOT_FOUND', 'No such text-to-speech job');
      case 'pending':
        return c.json({ status: 'pending', runId: q.data.runId, model: s.model });
      case 'completed':
        return audioResponse(s.audio, s.mime, s.cost, s.paymentSource);
      case 'error':
        return c.json({ status: 'error', error: s.error });
    }
  });
}
