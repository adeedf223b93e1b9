/**
 * Upload bytes held in memory (docs/gateway.md, "Untrusted content"). An upload is held from its first byte
 * until its reading is done (it waits in memory for a parse thread), so the bytes held are capped, per session
 * and for all sessions together. A body that declares its length is counted in full before a byte is read; one
 * that does not is counted as it arrives. Past the session's cap the answer is 429, past the overall cap 503, both
 * with Retry-After and the `{error, message}` body, and the body is not read any further.
 */
import type { Context } from 'hono';
import { jsonError } from '../http';
import type { UploadLimits } from '../parse/config';

/** Seconds a refused upload is told to wait: about how long the uploads ahead of it take to be read. */
export const UPLOAD_RETRY_AFTER_S = 5;

export type UploadRefusal = 'session' | 'total';

export interface UploadHold {
  /** Counts `bytes` more (a body without a declared length, as it arrives); the cap it would pass, or null. */
  grow(bytes: number): UploadRefusal | null;
  /** Gives the bytes back (safe to call twice). */
  release(): void;
}

export class UploadBudget {
  private total = 0;
  private readonly bySession = new Map<string, number>();
  /** The most bytes held at once since the gateway started. */
  peak = 0;

  constructor(readonly limits: UploadLimits) {}

  /** Bytes held now, all sessions together. */
  get held(): number {
    return this.total;
  }

  heldBy(session: string): number {
    return this.bySession.get(session) ?? 0;
  }

  private refusal(session: string, bytes: number): UploadRefusal | null {
    if (this.heldBy(session) + bytes > this.limits.perSessionBytes) return 'session';
    if (this.total + bytes > this.limits.totalBytes) return 'total';
    return null;
  }

  private add(session: string, bytes: number): void {
    this.total += bytes;
    if (this.total > this.peak) this.peak = this.total;
    const left = this.heldBy(session) + bytes;
    if (left > 0) this.bySession.set(session, left);
    else this.bySession.delete(session);
  }

  /** Holds `bytes` for the session, or says which cap they would pass (then nothing is held). */
  hold(session: string, bytes: number): UploadHold | UploadRefusal {
    const refused = this.refusal(session, bytes);
    if (refused) return refused;
    this.add(session, bytes);
    let mine = bytes;
    let released = false;
    return {
      grow: (more) => {
        if (released) return null;
        const over = this.refusal(session, more);
        if (over) return over;
        this.add(session, more);
        mine += more;
        return null;
      },
      release: () => {
        if (released) return;
        released = true;
        this.add(session, -mine);
      },
    };
  }
}

/** The answer to a refused upload: 429 past the session's cap, 503 past the overall one, with Retry-After. */
export function uploadRefused(c: Context, refusal: UploadRefusal): Response {
  c.header('Retry-After', String(UPLOAD_RETRY_AFTER_S));
  if (refusal === 'session') {
    return jsonError(c, 429, 'TOO_MANY_UPLOADS', `Too many uploads from this session at once; try again in ${UPLOAD_RETRY_AFTER_S} s`);
  }
  return jsonError(c, 503, 'UPLOADS_BUSY', `The server is reading too many uploads at once; try again in ${UPLOAD_RETRY_AFTER_S} s`);
}
