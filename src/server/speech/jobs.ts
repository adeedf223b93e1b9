/**
 * Text-to-speech jobs (DESIGN rule 13, docs/speech.md): every POST /api/tts is a row of `tts_jobs`
 * (migration 9), owned by the gateway that took it under a lease it renews while the provider works.
 *
 *  - The request waits up to PARLEY_TTS_SYNC_MS for the audio and answers it directly (the row ends 'delivered',
 *    with no bytes kept). Slower than that, it answers 202 {status: 'pending', runId, model}; the work goes on, and
 *    its audio is kept in the row ('completed') for GET /api/tts/status, which answers it until the row is purged.
 *  - A gateway that dies mid-job leaves a lease that runs out: the runner of any gateway claims such rows with
 *    FOR UPDATE SKIP LOCKED and does the job again (at most 3 attempts, 15 minutes), so a job is never lost.
 *  - A requestId is the request's (issue 5): the same request again (an engine that took over an Audio mode reply
 *    asks for its chunks again) gets the first one's job, pending, its audio or its failure, never a second job or
 *    charge; another text, model or voice under it is refused (REQUEST_ID_REUSED). So a finished job keeps its audio
 *    ('completed' or 'delivered') until the row is purged.
 *  - Money: the hold (key tts:{session}:{requestId|runId}) is reserved before the row exists and settled or released
 *    once; a job done twice (a dead owner) settles the same key, which charges once.
 */
import { randomBytes } from 'node:crypto';
import type { PaymentSource } from '../../protocol/stream';
import type { Db } from '../db/types';
import { requestBodyHash } from '../body/request-binding';
import type { Ledger } from '../money/ledger';
import type { SpeechJob } from './providers/types';
import type { OpenHold, PaidCall, Shortfall } from '../money/paid-call';
import { adoptSpeechHold, reserveSpeech, speechCharge } from './billing';
import type { SpeechCatalogue } from './catalogue';

/** A job's lease; renewed every third of it while its provider works. */
export const TTS_LEASE_MS = 60_000;
export const TTS_MAX_ATTEMPTS = 3;
export const TTS_JOB_MAX_AGE_MS = 15 * 60_000;
/** Finished rows (and their audio) are kept this long for a status call, then purged. */
export const TTS_RETAIN_MS = 60 * 60_000;

export interface TtsJobInput {
  model: string;
  job: SpeechJob;
  chars: number;
  costUsdMicro: string;
}

export type Made = { ok: true; audio: Uint8Array; mime: string; cost: number; paymentSource: PaymentSource | null } | { ok: false; status: number; code: string; message: string };

export type SubmitOutcome =
  | { kind: 'done'; made: Made }
  | { kind: 'pending'; runId: string }
  | { kind: 'short'; shortfall: Shortfall }
  | { kind: 'used' }
  /** The requestId was used for another request. */
  | { kind: 'reused' };

export type StatusOutcome =
  | { kind: 'unknown' }
  | { kind: 'pending'; model: string }
  | { kind: 'completed'; audio: Uint8Array; mime: string; cost: number; paymentSource: PaymentSource | null }
  | { kind: 'error'; error: string };

interface JobRow {
  [k: string]: unknown;
  run_id: string;
  session_id: string;
  hold_key: string | null;
  input: TtsJobInput | string;
  attempts: number;
  age_ms: string;
}

export interface TtsJobsOptions {
  db: Db;
  ledger: Ledger;
  catalogue: SpeechCatalogue;
  log: (line: string) => void;
  syncWaitMs: number;
  providerTimeoutMs: number;
  workerMs: number;
  /** Life of a job's hold if its gateway dies (renewed every third of it while the job runs); default HOLD_TTL_MS. */
  holdTtlMs?: number;
}

/** A job's input as canonical JSON, hashed (a JSONB round trip reorders its keys). */
const inputHash = (input: TtsJobInput): string => requestBodyHash<{ requestId?: string; input: TtsJobInput }>({ input });

/** SQLSTATE 23505: a unique index refused the row. */
const isUniqueViolation = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

export class TtsJobs {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private running = new Set<Promise<unknown>>();
  private lastPurge = 0;
  /** This process, as the owner of its leases. */
  readonly owner = randomBytes(9).toString('base64url');

  constructor(private readonly o: TtsJobsOptions) {}

  /** Starts the runner: at once (jobs a stopped gateway left), then every workerMs. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.running]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.tick()
        .catch((e: unknown) => this.o.log(`tts jobs: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => this.schedule(this.o.workerMs));
    }, ms);
    this.timer.unref?.();
  }

  /** One pass of the runner: claim abandoned jobs (their owner's lease ran out) and purge old rows. */
  async tick(): Promise<number> {
    const rows = await this.o.db.query<JobRow>(
      `UPDATE tts_jobs SET owner = $1, lease_until = now() + $2::bigint * interval '1 millisecond', attempts = attempts + 1, updated_at = now()
       WHERE run_id IN (SELECT run_id FROM tts_jobs WHERE status = 'running' AND lease_until < now()
         ORDER BY created_at LIMIT 4 FOR UPDATE SKIP LOCKED)
       RETURNING run_id, session_id, hold_key, input, attempts, (extract(epoch from now() - created_at) * 1000)::bigint::text AS age_ms`,
      [this.owner, String(TTS_LEASE_MS)],
    );
    for (const row of rows) {
      const input = typeof row.input === 'string' ? (JSON.parse(row.input) as TtsJobInput) : row.input;
      // The dead owner's hold, taken over by its key: renewed while this process works, settled or released once.
      const hold = row.hold_key === null ? null : adoptSpeechHold(this.o.ledger, row.session_id, this.holdCall(row.hold_key, input), this.o.log);
      if (row.attempts > TTS_MAX_ATTEMPTS || Number(row.age_ms) > TTS_JOB_MAX_AGE_MS) {
        await hold?.release();
        await this.finishError(row.run_id, 'Failed to generate audio: the job was given up after its gateway stopped');
        continue;
      }
      const p = this.execute(row.run_id, hold, input).then((made) => this.keep(row.run_id, made));
      this.track(p);
    }
    if (Date.now() - this.lastPurge > 60_000) {
      this.lastPurge = Date.now();
      await this.o.db.query(`DELETE FROM tts_jobs WHERE status <> 'running' AND updated_at < now() - $1::bigint * interval '1 millisecond'`, [String(TTS_RETAIN_MS)]);
    }
    return rows.length;
  }

  /** The paid call of a job's hold (key tts:{session}:{requestId|runId}). */
  private holdCall(key: string, input: TtsJobInput): PaidCall {
    return { key, maxUsdMicro: BigInt(input.costUsdMicro), note: `tts ${input.model}`, ...(this.o.holdTtlMs !== undefined ? { ttlMs: this.o.holdTtlMs } : {}) };
  }

  private track(p: Promise<unknown>): void {
    const t = p.catch((e: unknown) => this.o.log(`tts job: ${e instanceof Error ? e.message : String(e)}`)).finally(() => this.running.delete(t));
    this.running.add(t);
  }

  /**
   * Takes a request: reserve, write the row (leased to this process), run the provider. The audio if it is made
   * within the sync wait, else 202's runId (the work goes on and keeps its audio in the row).
   */
  async submit(sessionId: string, input: TtsJobInput, requestId: string | null): Promise<SubmitOutcome> {
    if (requestId !== null) {
      const prior = await this.prior(sessionId, requestId, input);
      if (prior) return prior;
    }
    const runId = randomBytes(18).toString('base64url');
    const holdKey = `tts:${sessionId}:${requestId ?? runId}`;
    const reserved = await reserveSpeech(this.o.ledger, sessionId, this.holdCall(holdKey, input), this.o.log);
    if (!reserved.ok) {
      if (reserved.kind === 'short') return { kind: 'short', shortfall: reserved.shortfall };
      // The same requestId is being taken by a parallel request: its job, once its row is written.
      return (requestId !== null ? await this.prior(sessionId, requestId, input, 40) : null) ?? { kind: 'used' };
    }
    try {
      await this.o.db.query(
        `INSERT INTO tts_jobs (run_id, session_id, request_id, model, input, chars, cost_usd_micro, hold_key, status, owner, lease_until)
         VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $7::bigint, $8, 'running', $9, now() + $10::bigint * interval '1 millisecond')`,
        [runId, sessionId, requestId, input.model, JSON.stringify(input), input.chars, input.costUsdMicro, reserved.hold ? holdKey : null, this.owner, String(TTS_LEASE_MS)],
      );
    } catch (e) {
      await reserved.hold?.release();
      // A free job's requestId taken by a parallel request (the unique index): that request's job.
      const prior = requestId !== null && isUniqueViolation(e) ? await this.prior(sessionId, requestId, input) : null;
      if (prior) return prior;
      throw e;
    }
    const work = this.execute(runId, reserved.hold, input);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answered = await Promise.race([work.then((made) => ({ made })), new Promise<null>((r) => (timer = setTimeout(() => r(null), this.o.syncWaitMs)))]);
    clearTimeout(timer);
    if (answered) {
      // Answered now; the audio is kept for a retry of this requestId.
      const m = answered.made;
      this.track(
        m.ok
          ? this.o.db.query(
              `UPDATE tts_jobs SET status = 'delivered', audio = decode($2, 'base64'), audio_type = $3, charged_usd_micro = $4::bigint, payment_source = $5, owner = NULL, updated_at = now() WHERE run_id = $1`,
              [runId, b64(m.audio), m.mime, String(Math.round(m.cost * 1e6)), m.paymentSource],
            )
          : this.o.db.query(`UPDATE tts_jobs SET status = 'error', error = $2, owner = NULL, updated_at = now() WHERE run_id = $1`, [runId, m.message.slice(0, 500)]),
      );
      return { kind: 'done', made: answered.made };
    }
    this.track(work.then((made) => this.keep(runId, made)));
    return { kind: 'pending', runId };
  }

  /**
   * The job this session already has under `requestId`: pending, its audio, its failure, or 'reused' when it was
   * another request; null when there is none (after `waits` tries 50 ms apart, for a row still being written).
   */
  private async prior(sessionId: string, requestId: string, input: TtsJobInput, waits = 0): Promise<SubmitOutcome | null> {
    for (let i = 0; ; i++) {
      const rows = await this.o.db.query<{ run_id: string; status: string; input: TtsJobInput | string; error: string | null; audio: Uint8Array | null; audio_type: string | null; charged: string | null; payment_source: string | null }>(
        `SELECT run_id, status, input, error, audio, audio_type, charged_usd_micro::text AS charged, payment_source FROM tts_jobs WHERE session_id = $1 AND request_id = $2`,
        [sessionId, requestId],
      );
      const r = rows[0];
      if (!r) {
        if (i >= waits) return null;
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      const theirs = typeof r.input === 'string' ? (JSON.parse(r.input) as TtsJobInput) : r.input;
      if (inputHash(theirs) !== inputHash(input)) return { kind: 'reused' };
      if (r.status === 'running') return { kind: 'pending', runId: r.run_id };
      if (r.audio && (r.status === 'completed' || r.status === 'delivered')) {
        return { kind: 'done', made: { ok: true, audio: new Uint8Array(r.audio), mime: r.audio_type ?? 'audio/mpeg', cost: Number(r.charged ?? '0') / 1e6, paymentSource: (r.payment_source as PaymentSource | null) ?? null } };
      }
      if (r.status === 'delivered') return { kind: 'used' };
      return { kind: 'done', made: { ok: false, status: 502, code: 'PROVIDER_ERROR', message: r.error ?? 'Failed to generate audio' } };
    }
  }

  /** A job's outcome kept for the status call. */
  private async keep(runId: string, made: Made): Promise<void> {
    if (!made.ok) return this.finishError(runId, made.message);
    await this.o.db.query(
      `UPDATE tts_jobs SET status = 'completed', audio = decode($2, 'base64'), audio_type = $3, charged_usd_micro = $4::bigint, payment_source = $5, owner = NULL, updated_at = now()
       WHERE run_id = $1 AND status = 'running'`,
      [runId, b64(made.audio), made.mime, String(Math.round(made.cost * 1e6)), made.paymentSource],
    );
  }

  private async finishError(runId: string, error: string): Promise<void> {
    await this.o.db.query(`UPDATE tts_jobs SET status = 'error', error = $2, owner = NULL, updated_at = now() WHERE run_id = $1 AND status = 'running'`, [runId, error.slice(0, 500)]);
  }

  /** Runs the provider under the job's lease, then settles (audio made) or releases (nothing made) its hold once. */
  private async execute(runId: string, hold: OpenHold | null, input: TtsJobInput): Promise<Made> {
    const entry = this.o.catalogue.get(input.model);
    if (!entry) {
      await hold?.release();
      return { ok: false, status: 400, code: 'UNKNOWN_MODEL', message: `The speech model ${input.model} is no longer offered` };
    }
    const renew = setInterval(() => {
      void this.o.db
        .query(`UPDATE tts_jobs SET lease_until = now() + $3::bigint * interval '1 millisecond' WHERE run_id = $1 AND owner = $2 AND status = 'running'`, [runId, this.owner, String(TTS_LEASE_MS)])
        .catch((e: unknown) => this.o.log(`tts job ${runId}: lease renewal failed: ${e instanceof Error ? e.message : String(e)}`));
    }, TTS_LEASE_MS / 3);
    renew.unref?.();
    try {
      const r = await entry.provider.synthesize(input.job, AbortSignal.timeout(this.o.providerTimeoutMs));
      if (!r.ok) {
        await hold?.release();
        return { ok: false, status: r.status >= 500 || r.status === 429 ? 502 : r.status, code: r.code, message: r.message };
      }
      const s = speechCharge((await hold?.settle(BigInt(input.costUsdMicro))) ?? null);
      return { ok: true, audio: r.audio, mime: r.mime, cost: s.cost, paymentSource: s.paymentSource };
    } catch (e) {
      await hold?.release();
      return { ok: false, status: 502, code: 'PROVIDER_ERROR', message: `Speech provider failed: ${e instanceof Error ? e.message : String(e)}` };
    } finally {
      clearInterval(renew);
    }
  }

  async status(sessionId: string, runId: string): Promise<StatusOutcome> {
    const rows = await this.o.db.query<{ status: string; model: string; error: string | null; audio: Uint8Array | null; audio_type: string | null; charged: string | null; payment_source: string | null }>(
      `SELECT status, model, error, audio, audio_type, charged_usd_micro::text AS charged, payment_source FROM tts_jobs WHERE run_id = $1 AND session_id = $2`,
      [runId, sessionId],
    );
    const r = rows[0];
    if (!r) return { kind: 'unknown' };
    if (r.status === 'running') return { kind: 'pending', model: r.model };
    if ((r.status === 'completed' || r.status === 'delivered') && r.audio) {
      return { kind: 'completed', audio: new Uint8Array(r.audio), mime: r.audio_type ?? 'audio/mpeg', cost: Number(r.charged ?? '0') / 1e6, paymentSource: (r.payment_source as PaymentSource | null) ?? null };
    }
    if (r.status === 'delivered') return { kind: 'error', error: 'This audio was already delivered by its request' };
    return { kind: 'error', error: r.error ?? 'Failed to generate audio' };
  }
}
