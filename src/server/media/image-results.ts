/**
 * Idempotent image generations (docs/gateway.md "Request ids", issue 5): an image request's requestId is bound to
 * that request in `request_bindings` under its own namespace (`image:{requestId}`), and its finished answer is kept
 * in `image_results` (migration 11) for an hour. So:
 *
 *  - the same requestId with another model or body is refused 409 REQUEST_ID_REUSED;
 *  - the same request again (a retry: the engine that sent it went away and the next one asks again) waits for the
 *    first one's answer and gets it back: never a second generation, never a second charge;
 *  - a provider failure is kept as that request's answer too (its hold key is spent; nothing was charged);
 *  - a request refused before the provider (no balance, free uses spent) frees its requestId, so a retry can go on.
 */
import type { Db } from '../db/types';
import type { RequestBinder } from '../body/request-binding';
import { requestBodyHash } from '../body/request-binding';
import type { GenerateImageRequest, GenerateImageResponse } from '../../protocol/media';

/** Finished answers are kept this long for a retry. */
export const IMAGE_RESULT_RETAIN_MS = 60 * 60_000;
const PURGE_EVERY_MS = 60_000;
const RETRY_POLL_MS = 100;

/** What the first request answered: the images (200) or its failure ({error, message}). */
export interface KeptAnswer {
  status: 200 | 400 | 429 | 502 | 503;
  body: GenerateImageResponse | { error: string; message: string };
}

export type ImageClaim =
  /** This request is the first with its requestId: generate, then keep() or free(). */
  | { kind: 'first' }
  /** A retry of a request that finished: its answer. */
  | { kind: 'answered'; answer: KeptAnswer }
  | { kind: 'reused'; differs: 'model' | 'body' }
  | { kind: 'no-session' }
  /** A retry of a request that never finished within its time (its gateway stopped): nothing was made or kept. */
  | { kind: 'lost' };

/** The hash that binds an image requestId: the request without its requestId and the explicit-mode switch. */
export function imageRequestHash(req: GenerateImageRequest): string {
  return requestBodyHash({ ...req, showExplicitContent: undefined });
}

export class ImageResults {
  private lastPurge = 0;

  constructor(
    private readonly db: Db,
    private readonly bindings: RequestBinder,
    /** After this long without an answer, a retry stops waiting for the first request. */
    private readonly giveUpMs: number,
  ) {}

  /** Binds the requestId to this request, or answers a retry with the first request's answer once it has one. */
  async claim(sessionId: string, requestId: string, model: string, req: GenerateImageRequest): Promise<ImageClaim> {
    const hash = imageRequestHash(req);
    for (;;) {
      const bound = await this.bindings.bind(sessionId, `image:${requestId}`, model, hash);
      if (bound.kind === 'new') return { kind: 'first' };
      if (bound.kind === 'no-session') return { kind: 'no-session' };
      if (bound.kind === 'other') return { kind: 'reused', differs: bound.differs };
      const kept = await this.kept(sessionId, requestId);
      if (kept) return { kind: 'answered', answer: kept };
      if (bound.ageMs > this.giveUpMs) return { kind: 'lost' };
      await new Promise((r) => setTimeout(r, RETRY_POLL_MS));
    }
  }

  /** Keeps the answer of a finished generation for its retries. */
  async keep(sessionId: string, requestId: string, answer: KeptAnswer): Promise<void> {
    await this.db.query(`INSERT INTO image_results (session_id, request_id, answer) VALUES ($1, $2, $3) ON CONFLICT (session_id, request_id) DO NOTHING`, [sessionId, requestId, JSON.stringify(answer)]);
    if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = Date.now();
      await this.db.query(`DELETE FROM image_results WHERE created_at < now() - $1::bigint * interval '1 millisecond'`, [String(IMAGE_RESULT_RETAIN_MS)]);
    }
  }

  /** Frees the requestId of a request that made nothing, so that it can be sent again. */
  async free(sessionId: string, requestId: string): Promise<void> {
    await this.bindings.unbind(sessionId, `image:${requestId}`);
  }

  private async kept(sessionId: string, requestId: string): Promise<KeptAnswer | null> {
    const rows = await this.db.query<{ answer: string }>(`SELECT answer FROM image_results WHERE session_id = $1 AND request_id = $2`, [sessionId, requestId]);
    const row = rows[0];
    return row ? (JSON.parse(row.answer) as KeptAnswer) : null;
  }
}
