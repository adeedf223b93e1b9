/**
 * Wire shapes of the speech calls (spec 000 and 001 section 7): POST /api/tts, GET /api/tts/status, and our
 * transcription calls for voice mode, POST /api/transcribe and GET /api/transcribe/config (docs/protocol.md).
 * Zod schemas so the gateway validates at the edge; the worker imports only the types.
 */
import { z } from 'zod';
import { RequestIdSchema } from './request-id';

const unit = z.number().min(0).max(1);

/**
 * POST /api/tts. `text` is one chunk (the client splits at 3900 characters); the model's limit (10000 or 4096) is
 * checked by the gateway. `requestId` is the idempotency key of the charge (one per chunk, reused on a retry).
 */
export const TtsRequestSchema = z.object({
  text: z.string().min(1).max(20_000),
  model: z.string().min(1).max(100),
  voice: z.string().min(1).max(100).optional(),
  speed: z.number().min(0.1).max(10).optional(),
  stability: unit.optional(),
  similarity_boost: unit.optional(),
  style: unit.optional(),
  /** gpt-4o-mini-tts's free-text voice instructions. */
  instructions: z.string().max(2000).optional(),
  requestId: RequestIdSchema.optional(),
});
export type TtsRequest = z.infer<typeof TtsRequestSchema>;

/** The 202 answer: the audio is being made; ask GET /api/tts/status?runId=&model= (every 3 s, at most 60 times). */
export interface TtsPendingBody {
  status: 'pending';
  runId: string;
  model: string;
}

/** GET /api/tts/status while not ready, or when it failed. A completed job answers the audio itself. */
export type TtsStatusBody =
  | { status: 'pending'; runId: string; model: string }
  | { status: 'completed'; audioUrl: string }
  | { status: 'error'; error: string };

export const TtsStatusQuerySchema = z.object({
  runId: z.string().regex(/^[A-Za-z0-9_-]{8,80}$/),
  model: z.string().min(1).max(100).optional(),
});

/** Headers of an audio answer: what it cost (USD, decimal) and which balance paid (absent when free). */
export const TTS_COST_HEADER = 'X-Parley-Cost';
export const TTS_PAYMENT_SOURCE_HEADER = 'X-Parley-Payment-Source';

/** GET /api/transcribe/config: can the gateway transcribe (a provider is configured), and the largest upload. */
export interface TranscribeConfig {
  available: boolean;
  model: string | null;
  maxBytes: number;
}

/** POST /api/transcribe (the recording as the body, Content-Type audio/*; ?language=, ?requestId=): the text heard. */
export interface TranscribeResponse {
  text: string;
  /** Seconds of audio, when known. */
  duration: number | null;
  cost: number;
  paymentSource: 'USD' | 'nano' | null;
}

/** Largest recording accepted for transcription (the OpenAI API's own limit is 25 MB). */
export const TRANSCRIBE_MAX_BYTES = 25 * 1024 * 1024;
