/**
 * The video status pipeline (spec 000 section 4, DESIGN rule 6): one cancellable RxJS pipeline for every video
 * job of this engine. Every 10 s it asks GET /api/generate-video/status for each job still pending or processing;
 * COMPLETED downloads the video into `files` and records it, FAILED / ERROR and CANCELLED end the job with the
 * gateway's note, anything else is processing. 20 minutes after the message's timestamp the job ends with
 * 'Timed out waiting for video generation'. The jobs come from the read models when the engine starts (so a new
 * leader resumes them) and from the log as they are requested; one engine serves every tab, so no job is polled
 * twice.
 */
import { Subject, exhaustMap, filter, takeUntil, timer, type Subscription } from 'rxjs';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { MessageRow } from '../../../events/model';
import { VIDEO_TIMED_OUT } from '../../../protocol/media';
import { isVideoActive, mapVideoStatus, VIDEO_POLL_MS, VIDEO_TIMEOUT_MS, videoTimedOut } from '../../../protocol/video-rules';
import type { EngineCore, Room, RoomKind } from '../../core';
import { gateway, GatewayError } from '../../infra/gateway';

interface Job {
  messageId: number;
  slug: string;
  runId: string;
  model: string;
  timestamp: number;
  status: MessageRow['videoStatus'];
}

/** Ours: the note of a job the gateway does not know (it was lost, or the session changed). */
export const VIDEO_JOB_LOST = 'Video generation failed: the server no longer knows this job.';
/** Ours: the note of a failure the gateway gave no words for. */
export const VIDEO_FAILED = 'Video generation failed.';

/** The media room's background pipeline: one per engine, stopped when the engine is disposed. */
export const VIDEO_POLLER: RoomKind<VideoPoller> = { name: 'video polling', create: (core) => new VideoPoller(core) };

export class VideoPoller implements Room {
  private readonly jobs = new Map<number, Job>();
  private readonly stop$ = new Subject<void>();
  private subscription: Subscription | null = null;
  private stopped = false;
  /** Aborted on stop: a download in flight ends, and nothing is written after the engine closed. */
  private readonly aborted = new AbortController();
  readonly pollMs: number;
  readonly timeoutMs: number;

  constructor(private readonly core: EngineCore) {
    this.pollMs = core.hooksValue('videoPollMs') ?? VIDEO_POLL_MS;
    this.timeoutMs = core.hooksValue('videoTimeoutMs') ?? VIDEO_TIMEOUT_MS;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Jobs being polled (tests, the view). */
  get active(): number {
    return this.jobs.size;
  }

  async start(): Promise<void> {
    if (!this.core.storageOk || this.stopped) return;
    // Jobs left pending or processing, found through the log's index of video.requested (not a scan of messages).
    const requested = await this.core.db.events.where('type').equals('video.requested').toArray();
    const ids = requested.map((e) => (e.payload as { messageId: number }).messageId);
    const rows = await this.core.db.messages.bulkGet(ids);
    for (const m of rows) if (m && isVideoActive(m.videoStatus) && m.videoGenerationId) this.add(m);
    // The engine may have been disposed while the jobs were read.
    if (this.stopped) return;
    const events = this.core.events$.pipe(takeUntil(this.stop$)).subscribe((batch) => this.follow(batch));
    this.subscription = timer(0, this.pollMs)
      .pipe(
        filter(() => this.jobs.size > 0),
        exhaustMap(() => this.pollAll()),
        takeUntil(this.stop$),
      )
      .subscribe();
    this.subscription.add(events);
  }

  /** Aborted when the engine stops (a call made for the poller's jobs ends with it). */
  get signal(): AbortSignal {
    return this.aborted.signal;
  }

  /** Resolves after `ms`, or at once when the engine stops. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.aborted.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.aborted.signal.addEventListener('abort', done, { once: true });
    });
  }

  dispose(): void {
    this.stop();
  }

  stop(): void {
    this.stopped = true;
    this.aborted.abort();
    this.stop$.next();
    this.subscription?.unsubscribe();
  }

  private add(m: Pick<MessageRow, 'id' | 'conversationSlug' | 'videoGenerationId' | 'model' | 'timestamp' | 'videoStatus'>): void {
    if (!m.videoGenerationId) return;
    this.jobs.set(m.id, { messageId: m.id, slug: m.conversationSlug, runId: m.videoGenerationId, model: m.model, timestamp: m.timestamp, status: m.videoStatus ?? 'pending' });
  }

  private follow(batch: readonly NewEvent[]): void {
    for (const e of batch) {
      if (e.type === 'video.requested') {
        const p = e.payload;
        const job: Job = { messageId: p.messageId, slug: p.conversationSlug, runId: p.runId, model: p.model, timestamp: p.at, status: 'pending' };
        this.jobs.set(p.messageId, job);
        // The 20 minutes count from the message's timestamp (spec 000 section 4), not from the gateway's answer.
        void this.core.db.messages
          .get(p.messageId)
          .then((m) => {
            if (m) job.timestamp = m.timestamp;
          })
          .catch(() => undefined); // the engine is closing
      } else if (e.type === 'video.statusChanged') {
        const job = this.jobs.get(e.payload.messageId);
        if (!job) continue;
        if (e.payload.status === 'processing') job.status = 'processing';
        else this.jobs.delete(e.payload.messageId);
      } else if (e.type === 'message.deleted') {
        for (const id of e.payload.messageIds) this.jobs.delete(id);
      } else if (e.type === 'conversation.purged') {
        for (const [id, job] of this.jobs) if (job.slug === e.payload.slug) this.jobs.delete(id);
      }
    }
  }

  private async pollAll(): Promise<void> {
    await Promise.all(
      [...this.jobs.values()].map((job) =>
        this.poll(job).catch((error: unknown) => {
          if (!this.stopped) console.warn(`Video ${job.runId}: status check failed`, error);
        }),
      ),
    );
  }

  private async record(job: Job, changes: Omit<Extract<NewEvent, { type: 'video.statusChanged' }>['payload'], 'messageId' | 'conversationSlug' | 'at'>): Promise<void> {
    // Stopped while the gateway answered: the engine is closing; the next engine polls the job again.
    if (this.stopped) return;
    const now = Date.now();
    if (changes.status !== 'processing') this.jobs.delete(job.messageId);
    await this.core.append([makeEvent('video.statusChanged', { messageId: job.messageId, conversationSlug: job.slug, ...changes, at: now }, crypto.randomUUID(), now)]);
  }

  private async poll(job: Job): Promise<void> {
    const none = { videoUrl: null, videoFileId: null, cost: 0, paymentSource: null };
    if (videoTimedOut(job.timestamp, Date.now(), this.timeoutMs)) return this.record(job, { ...none, status: 'error', error: VIDEO_TIMED_OUT });
    let answer;
    try {
      answer = await gateway.videoStatus(job.runId, job.model);
    } catch (error) {
      if (error instanceof GatewayError && error.status === 404) return this.record(job, { ...none, status: 'error', error: VIDEO_JOB_LOST });
      return; // the gateway or the network hiccupped: the next tick asks again
    }
    const status = mapVideoStatus(answer.data.status);
    if (status === 'processing') {
      if (job.status === 'pending') await this.record(job, { ...none, status: 'processing', error: null });
      job.status = 'processing';
      return;
    }
    if (status === 'completed') {
      const url = answer.data.video_url;
      const file = url ? await fetch(url, { credentials: 'same-origin', signal: this.aborted.signal }).catch(() => null) : null;
      if (!url || !file?.ok) return; // not downloadable yet: ask again on the next tick
      const blob = await file.blob();
      if (this.stopped) return;
      const now = Date.now();
      const fileId = this.core.ids.next(now);
      await this.core.db.files.put({ id: fileId, file: blob.type ? blob : new Blob([blob], { type: 'video/mp4' }) });
      return this.record(job, { status: 'completed', videoUrl: url, videoFileId: fileId, error: null, cost: answer.data.cost, paymentSource: answer.data.paymentSource });
    }
    return this.record(job, { ...none, status, error: answer.data.error ?? VIDEO_FAILED });
  }
}
