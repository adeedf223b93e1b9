/**
 * Video jobs (DESIGN rule 13): every POST /api/generate-video is a row of `video_jobs` (migration 6), so a job
 * outlives the gateway that took it. A runner in each gateway claims due jobs with FOR UPDATE SKIP LOCKED and a
 * lease, submits them to their provider, asks the provider how they are doing, keeps the finished video and settles
 * the job's hold once (a job moves to 'completed' or 'failed' by a conditional UPDATE: only the claimant that makes
 * that move settles or releases). Two gateways on one Postgres never run, settle or release a job twice; a gateway
 * that dies mid-step leaves a lease that runs out, and the job is picked up again.
 */
import type { PaymentSource } from '../../protocol/stream';
import type { VideoJobStatus } from '../../protocol/media';
import type { RouteContext } from '../context';
import type { Db } from '../db/types';
import type { Ledger } from '../money/ledger';
import { paymentSourceOf } from '../money/paid-call';
import type { VideoJobInput } from './providers/types';
import { TransientProviderError } from './providers/types';
import type { MediaCatalogue } from './catalogue';

export type JobState = 'queued' | 'submitted' | 'completed' | 'failed' | 'cancelled';

/** What a lease covers: one step (a submit, a status call, a download). */
const LEASE_MS = 120_000;
/** Consecutive transient failures (a status endpoint that flaps) before a job is given up. */
export const MAX_TRANSIENT_FAILURES = 8;
/** How often an idle gateway looks for jobs another gateway left (a job made here wakes the runner at once). */
const IDLE_MS = 30_000;
/** A job still running this long after it was made is given up (the client stops at 20 minutes). */
export const JOB_MAX_AGE_MS = 25 * 60_000;

export interface JobRow {
  [k: string]: unknown;
  run_id: string;
  session_id: string;
  model: string;
  input: VideoJobInput;
  status: JobState;
  provider_job_id: string | null;
  hold_key: string | null;
  price_usd_micro: string | null;
  failures: number;
  age_ms: number;
}

export interface JobView {
  model: string;
  status: VideoJobStatus;
  error: string | null;
  cost: number;
  paymentSource: PaymentSource | null;
  hasVideo: boolean;
}

const WIRE: Record<JobState, VideoJobStatus> = { queued: 'IN_QUEUE', submitted: 'IN_PROGRESS', completed: 'COMPLETED', failed: 'FAILED', cancelled: 'CANCELLED' };

export async function readJob(db: Db, sessionId: string, runId: string): Promise<JobView | null> {
  const rows = await db.query<{ model: string; status: JobState; error: string | null; cost: string; payment_source: string | null; has_video: boolean }>(
    `SELECT model, status, error, cost_usd_micro::text AS cost, payment_source, video IS NOT NULL AS has_video FROM video_jobs WHERE run_id = $1 AND session_id = $2`,
    [runId, sessionId],
  );
  const r = rows[0];
  if (!r) return null;
  return { model: r.model, status: WIRE[r.status], error: r.error, cost: Number(r.cost) / 1e6, paymentSource: (r.payment_source as PaymentSource | null) ?? null, hasVideo: r.has_video };
}

export async function readVideo(db: Db, sessionId: string, runId: string): Promise<{ bytes: Uint8Array; type: string } | null> {
  const rows = await db.query<{ video: Uint8Array | null; video_type: string | null }>(`SELECT video, video_type FROM video_jobs WHERE run_id = $1 AND session_id = $2 AND status = 'completed'`, [runId, sessionId]);
  const r = rows[0];
  if (!r?.video) return null;
  return { bytes: new Uint8Array(r.video), type: r.video_type ?? 'video/mp4' };
}

export interface RunnerOptions {
  db: Db;
  ledger: Ledger;
  media: MediaCatalogue;
  log: RouteContext['log'];
  /** How often due jobs are looked for. */
  intervalMs: number;
  /** How long after a status call the next one is due. */
  pollMs: number;
  /** Jobs advanced at once by one gateway. */
  batch?: number;
}

export class VideoJobRunner {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly controller = new AbortController();

  constructor(private readonly o: RunnerOptions) {}

  start(): void {
    this.schedule(0);
  }

  /** Looks for due jobs now (a job was just made). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      let next = this.o.intervalMs;
      this.running = this.tick()
        .then(async () => {
          next = await this.untilDue();
        })
        .catch((e: unknown) => this.o.log(`video jobs: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => {
          this.running = null;
          this.schedule(this.again ? 0 : next);
          this.again = false;
        });
    }, ms);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.controller.abort();
    await this.running;
  }

  /**
   * How long until the next job is due (at least intervalMs); with none running, IDLE_MS: an idle gateway asks the
   * database twice a minute, and a job made here wakes it at once.
   */
  private async untilDue(): Promise<number> {
    const rows = await this.o.db.query<{ ms: number | null }>(
      `SELECT (EXTRACT(EPOCH FROM (min(next_check_at) - now())) * 1000)::float8 AS ms FROM video_jobs WHERE status IN ('queued', 'submitted')`,
    );
    const ms = rows[0]?.ms;
    if (ms === null || ms === undefined) return Math.max(this.o.intervalMs, IDLE_MS);
    return Math.min(Math.max(this.o.intervalMs, Number(ms)), Math.max(this.o.intervalMs, IDLE_MS));
  }

  /** Claims due jobs and advances each one step. Exposed for tests. */
  async tick(): Promise<number> {
    const jobs = await this.o.db.query<JobRow>(
      `UPDATE video_jobs SET lease_until = now() + $1::bigint * interval '1 millisecond'
       WHERE run_id IN (
         SELECT run_id FROM video_jobs
         WHERE status IN ('queued', 'submitted') AND next_check_at <= now() AND (lease_until IS NULL OR lease_until < now())
         ORDER BY next_check_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING run_id, session_id, model, input, status, provider_job_id, hold_key, price_usd_micro::text AS price_usd_micro, failures,
         (EXTRACT(EPOCH FROM (now() - created_at)) * 1000)::float8 AS age_ms`,
      [LEASE_MS, this.o.batch ?? 4],
    );
    await Promise.all(jobs.map((j) => this.advance(j)));
    return jobs.length;
  }

  private async advance(job: JobRow): Promise<void> {
    const model = this.o.media.video(job.model);
    if (!model) return this.finish(job, 'failed', `The video model ${job.model} is no longer configured`);
    if (Number(job.age_ms) > JOB_MAX_AGE_MS) return this.finish(job, 'failed', 'Timed out waiting for video generation');
    const signal = this.controller.signal;
    try {
      if (job.status === 'queued') {
        const id = await model.provider.submit(job.input, job.run_id, signal);
        await this.o.db.query(
          `UPDATE video_jobs SET status = 'submitted', provider_job_id = $2, failures = 0, lease_until = NULL, updated_at = now(),
             next_check_at = now() + $3::bigint * interval '1 millisecond' WHERE run_id = $1 AND status = 'queued'`,
          [job.run_id, id, this.o.pollMs],
        );
        return;
      }
      const poll = await model.provider.poll(job.provider_job_id ?? '', job.input, signal);
      if (poll.state === 'running') {
        await this.o.db.query(
          `UPDATE video_jobs SET failures = 0, lease_until = NULL, updated_at = now(), next_check_at = now() + $2::bigint * interval '1 millisecond' WHERE run_id = $1`,
          [job.run_id, this.o.pollMs],
        );
        return;
      }
      if (poll.state === 'failed') return this.finish(job, poll.status === 'CANCELLED' ? 'cancelled' : 'failed', poll.message);
      return this.complete(job, poll.video);
    } catch (e) {
      if (signal.aborted) return;
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof TransientProviderError && job.failures + 1 < MAX_TRANSIENT_FAILURES) {
        this.o.log(`video job ${job.run_id}: ${message}; will retry`);
        await this.o.db.query(
          `UPDATE video_jobs SET failures = failures + 1, lease_until = NULL, updated_at = now(),
             next_check_at = now() + $2::bigint * interval '1 millisecond' WHERE run_id = $1`,
          [job.run_id, this.o.pollMs * Math.min(8, 2 ** job.failures)],
        );
        return;
      }
      return this.finish(job, 'failed', message);
    }
  }

  /** Keeps the video and settles the hold, once: only the claimant whose UPDATE moves the job to completed settles. */
  private async complete(job: JobRow, video: { bytes: Uint8Array; mime: string }): Promise<void> {
    const moved = await this.o.db.query(
      `UPDATE video_jobs SET status = 'completed', video = $2, video_type = $3, lease_until = NULL, updated_at = now()
       WHERE run_id = $1 AND status IN ('queued', 'submitted') RETURNING run_id`,
      [job.run_id, video.bytes, video.mime],
    );
    if (moved.length === 0 || job.hold_key === null || job.price_usd_micro === null) return;
    try {
      const r = await this.o.ledger.settle(job.session_id, job.hold_key, BigInt(job.price_usd_micro), { countReply: true, note: `video ${job.model}` });
      await this.o.db.query(`UPDATE video_jobs SET cost_usd_micro = $2::bigint, payment_source = $3 WHERE run_id = $1`, [
        job.run_id,
        r.chargedUsdValueMicro.toString(),
        paymentSourceOf(r),
      ]);
    } catch (e) {
      this.o.log(`video job ${job.run_id}: settle failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Ends a job without a video; its hold is given back (nothing is charged for a failure). */
  private async finish(job: JobRow, state: 'failed' | 'cancelled', error: string): Promise<void> {
    const moved = await this.o.db.query(
      `UPDATE video_jobs SET status = $2, error = $3, lease_until = NULL, updated_at = now() WHERE run_id = $1 AND status IN ('queued', 'submitted') RETURNING run_id`,
      [job.run_id, state, error.slice(0, 1000)],
    );
    this.o.log(`video job ${job.run_id} ${state}: ${error}`);
    if (moved.length > 0 && job.hold_key !== null) await this.o.ledger.release(job.hold_key).catch(() => false);
  }
}
