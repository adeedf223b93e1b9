/**
 * Reading library files, as cancellable pipelines restarted from the read models (DESIGN rule 6): an item left
 * 'not started', 'uploading' or 'processing' by an engine that went away (a reload, a leader hand-off) is picked up
 * by the next engine from its stored Blob, or, for server work, by asking the gateway about its job (polling every
 * 2 s, up to 60 attempts; spec 000 section 4). Every state change is an event; the view follows the read model.
 *
 *  - image: compressed or converted in a file worker (spec 001 section 4), with the 'Compressing Image' and
 *    'Image Compressed Successfully' notices; the compressed Blob replaces the original in `files`.
 *  - client: PDF (page by page, progress every 10%), DOCX (mammoth; the gateway is its fallback), text formats.
 *  - server: POST /api/process-document with the item's job id; when the answer is lost, its status is polled.
 */
import * as Comlink from 'comlink';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { LibraryRow } from '../../../events/model';
import { FINAL_STATUSES } from '../../../projections/library';
import { formatFileSize, IMAGE_SIZE_LIMIT, IMAGE_UPLOAD, LIBRARY_POLL_ATTEMPTS, LIBRARY_POLL_MS, UPLOAD, type LibraryStatus } from '../../../protocol/attachments';
import type { EngineCore, Room, RoomKind } from '../../core';
import { GatewayError } from '../../infra/gateway';
import { attachmentCalls } from './gateway-calls';
import { withFileWorker } from './file-jobs';
import type { ImageValidation } from './attachments/image';

/** Milliseconds of the upload error notice (spec 001 section 8: red, closes after 10 s). */
export const UPLOAD_ERROR_MS = 10_000;
const SUCCESS_MS = 5_000;

export interface PollOptions {
  intervalMs: number;
  attempts: number;
}

/** A pause that ends early (rejecting) when the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Polls a server job (spec 000 section 4: every 2 s, up to 60 attempts): 'completed' answers, 'unknown' means the
 * gateway never got the file (the caller sends it again), 'timeout' when every attempt said it was still processing.
 */
export async function pollJob<T>(check: () => Promise<{ state: 'completed'; answer: T } | { state: 'processing' } | { state: 'unknown' }>, signal: AbortSignal, options: PollOptions = { intervalMs: LIBRARY_POLL_MS, attempts: LIBRARY_POLL_ATTEMPTS }): Promise<{ state: 'completed'; answer: T } | { state: 'unknown' } | { state: 'timeout' }> {
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const status = await check();
    if (status.state !== 'processing') return status;
    if (attempt < options.attempts) await pause(options.intervalMs, signal);
  }
  return { state: 'timeout' };
}

/** The library room's reading pipelines, one per engine: dispose stops every upload, read and status poll. */
export const LIBRARY_JOBS: RoomKind<LibraryJobs> = { name: 'library', create: (core) => new LibraryJobs(core) };

export class LibraryJobs implements Room {
  private readonly running = new Map<number, AbortController>();
  /** Images compressing now, and the id of their shared 'Compressing Image' notice. */
  private compressions = 0;
  private compressingNotice: string | null = null;
  poll: PollOptions = { intervalMs: LIBRARY_POLL_MS, attempts: LIBRARY_POLL_ATTEMPTS };

  constructor(private readonly core: EngineCore) {}

  isRunning(id: number): boolean {
    return this.running.has(id);
  }

  /** Starts reading an item in the background (once per item at a time). */
  start(item: LibraryRow): void {
    if (this.running.has(item.id)) return;
    const controller = new AbortController();
    this.running.set(item.id, controller);
    void this.run(item, controller.signal)
      .catch((error: unknown) => {
        // The engine closed its database (its tab went away): the next engine resumes the item.
        if (controller.signal.aborted || (error instanceof Error && error.name === 'DatabaseClosedError')) return;
        console.error(`Library item ${item.id} failed`, error);
        return this.fail(item, UPLOAD.analysisFailed);
      })
      .catch(() => undefined)
      .finally(() => this.running.delete(item.id));
  }

  dispose(): void {
    for (const controller of this.running.values()) controller.abort(new Error('engine closed'));
    this.running.clear();
  }

  cancel(id: number): void {
    this.running.get(id)?.abort(new Error('cancelled'));
    this.running.delete(id);
  }

  /** After a reload or a leader hand-off: every item still being read is read again (or its job polled). */
  async resume(): Promise<void> {
    const open = await this.core.db.library.filter((r) => !FINAL_STATUSES.has(r.status)).toArray();
    for (const item of open) this.start(item);
  }

  private async append(events: NewEvent[]): Promise<boolean> {
    try {
      await this.core.append(events);
      return true;
    } catch {
      return false;
    }
  }

  /** Appends a progress event unless the item is gone or already final. */
  async progress(id: number, status: LibraryStatus, progress: number | null, jobId?: string): Promise<void> {
    const row = await this.core.db.library.get(id);
    if (!row || FINAL_STATUSES.has(row.status)) return;
    const now = Date.now();
    await this.append([makeEvent('library.itemProgressed', { id, status, progress, ...(jobId ? { jobId } : {}), at: now }, crypto.randomUUID(), now)]);
  }

  private async complete(item: LibraryRow, content: string[], processingTime: number, processedLocally: boolean, media: { mimeType?: string; sizeBytes?: number; thumbId?: number } = {}): Promise<void> {
    if (!(await this.core.db.library.get(item.id))) return;
    const now = Date.now();
    await this.append([makeEvent('library.itemCompleted', { id: item.id, content, processingTime, processedLocally, ...media, at: now }, crypto.randomUUID(), now)]);
  }

  private async fail(item: LibraryRow, error: string, title: string = item.type === 'image' ? IMAGE_UPLOAD.uploadErrorTitle : UPLOAD.errorTitle): Promise<void> {
    if (!(await this.core.db.library.get(item.id))) return;
    const now = Date.now();
    await this.append([makeEvent('library.itemFailed', { id: item.id, error, at: now }, crypto.randomUUID(), now)]);
    this.core.notify({ title, text: `${item.name}: ${error}`, tone: 'red', durationMs: UPLOAD_ERROR_MS });
    attachmentCalls.reportUnsupported(item.fileType ?? '', item.sizeBytes ?? 0);
  }

  /**
   * The 'Compressing Image' notice (spec 001 section 8: it stays until done) is one notice however many images
   * compress at once (one notice per title, src/worker/core.ts): it names the latest image and closes when the
   * last compression ends, not when the first does.
   */
  private compressionStarted(name: string, size: number): void {
    this.compressions++;
    this.core.notify({ title: IMAGE_UPLOAD.compressingTitle, text: IMAGE_UPLOAD.compressingText(name, formatFileSize(size)), tone: 'blue', durationMs: null });
    this.compressingNotice = this.core.notices$.value.find((n) => n.title === IMAGE_UPLOAD.compressingTitle)?.id ?? null;
  }

  private compressionEnded(): void {
    this.compressions = Math.max(0, this.compressions - 1);
    if (this.compressions > 0 || this.compressingNotice === null) return;
    void this.core.dismissNotice(this.compressingNotice);
    this.compressingNotice = null;
  }

  private async blob(item: LibraryRow): Promise<Blob | null> {
    const row = await this.core.db.files.get(item.fileId);
    if (!row) return null;
    return row.file instanceof Blob ? row.file : new Blob([row.file], { type: item.mimeType ?? '' });
  }

  private async run(item: LibraryRow, signal: AbortSignal): Promise<void> {
    const blob = await this.blob(item);
    if (!blob) return this.fail(item, UPLOAD.analysisFailed);
    if (item.processing === 'image') return this.runImage(item, blob);
    if (item.processing === 'server') return this.runServer(item, blob, signal);
    return this.runClient(item, blob, signal);
  }

  private async runImage(item: LibraryRow, blob: Blob): Promise<void> {
    const started = performance.now();
    await this.progress(item.id, 'processing', null);
    let compressing = false;
    const onCompressing = (): void => {
      if (compressing) return;
      compressing = true;
      this.compressionStarted(item.name, blob.size);
    };
    let result: ImageValidation;
    let thumb: Blob | null = null;
    try {
      const enabled = this.core.preferences$.value.imageCompressionEnabled;
      // The thumbnail is made in the same file worker from the prepared (compressed) image: the page never decodes the original.
      result = await withFileWorker<ImageValidation>(async (api) => {
        const prepared = await api.prepareImage(blob, item.name, enabled, Comlink.proxy(onCompressing));
        if (prepared.isValid) thumb = await api.thumbnail(prepared.file.blob);
        return prepared;
      });
    } finally {
      if (compressing) this.compressionEnded();
    }
    if (!result.isValid) return this.fail(item, result.error, result.title);
    const file = result.file;
    if (file.wasCompressed) {
      await this.core.db.files.put({ id: item.fileId, file: file.blob });
      if (file.originalSize > file.finalSize && item.sizeBytes !== undefined && file.originalSize > IMAGE_SIZE_LIMIT) {
        const percent = Math.round((1 - file.finalSize / file.originalSize) * 100);
        this.core.notify({ title: IMAGE_UPLOAD.compressedTitle, text: IMAGE_UPLOAD.compressedText(formatFileSize(file.originalSize), formatFileSize(file.finalSize), percent), tone: 'green', durationMs: SUCCESS_MS });
      }
    }
    let thumbId: number | undefined;
    if (thumb) {
      thumbId = this.core.ids.next(Date.now());
      await this.core.db.files.put({ id: thumbId, file: thumb });
    }
    await this.complete(item, [], (performance.now() - started) / 1000, true, { mimeType: file.mimeType, sizeBytes: file.finalSize, ...(thumbId === undefined ? {} : { thumbId }) });
  }

  private async runClient(item: LibraryRow, blob: Blob, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    const ext = item.fileType ?? '';
    await this.progress(item.id, 'processing', 0);
    let lastShown = 0;
    // Progress appends run one after another, and the last is awaited before the outcome is appended: a late
    // progress event must never land after 'completed' (the projection would take it back to 'processing').
    // Progress callbacks come on their own message port, so one may arrive after the result: once the result is
    // in (`finished`), none is appended.
    let pending: Promise<void> = Promise.resolve();
    let finished = false;
    const onProgress = (p: { done: number; total: number }): void => {
      const fraction = p.total > 0 ? p.done / p.total : 0;
      if (finished || fraction - lastShown < 0.1 || fraction >= 1) return;
      lastShown = fraction;
      pending = pending.then(() => (finished ? undefined : this.progress(item.id, 'processing', Math.round(fraction * 100) / 100)));
    };
    try {
      const out = await withFileWorker((api) => (ext === 'pdf' ? api.readPdf(blob, Comlink.proxy(onProgress)) : ext === 'docx' ? api.readDocx(blob) : api.readText(blob)));
      finished = true;
      await pending;
      if (out.text.trim() === '') return this.fail(item, UPLOAD.noText);
      return this.complete(item, [out.text], (performance.now() - started) / 1000, true);
    } catch (error) {
      finished = true;
      await pending;
      if (signal.aborted) return;
      const noText = error instanceof Error && error.message === UPLOAD.noText;
      // A password-protected file: the gateway would refuse it too (issue 17).
      if (error instanceof Error && error.message === UPLOAD.protectedFile) return this.fail(item, UPLOAD.protectedFile);
      // Spec 000 section 5: a DOCX is read in the browser with the server as its fallback.
      if (ext === 'docx' && !noText) return this.runServer(item, blob, signal, true);
      return this.fail(item, noText ? UPLOAD.noText : UPLOAD.analysisFailed);
    }
  }

  private async runServer(item: LibraryRow, blob: Blob, signal: AbortSignal, docxFallback = false): Promise<void> {
    const jobId = item.jobId ?? `lib-${item.id}-${item.createdAt}`;
    const failServer = (reason: string | null, code?: string): Promise<void> => {
      if (code === 'NO_TEXT') return this.fail(item, UPLOAD.noText);
      // The gateway's refusal of a password-protected file is shown as it is, whatever the format (issue 17).
      if (reason === UPLOAD.protectedFile) return this.fail(item, UPLOAD.protectedFile);
      if (docxFallback) return this.fail(item, UPLOAD.docxFailed);
      if (item.fileType === 'doc') return this.fail(item, UPLOAD.docFailed);
      return this.fail(item, reason === null ? UPLOAD.serverUnavailable : UPLOAD.serverFailed(reason));
    };
    // An engine that took over asks about the job first: the file may have been read already.
    if (item.jobId) {
      const known = await this.pollServer(jobId, signal);
      if (known === 'done') return;
      if (known.state === 'completed') return this.complete(item, [known.answer.content], known.answer.processing_time, false);
      if (known.state === 'error') return failServer(known.message, known.code);
      if (known.state === 'timeout') return failServer('timed out');
    }
    await this.progress(item.id, 'uploading', null, jobId);
    try {
      const answer = await attachmentCalls.processDocument(blob, item.name, jobId, signal);
      return this.complete(item, [answer.content], answer.processing_time, false);
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof GatewayError && error.status === 422) return failServer(error.body?.message ?? error.message, error.body?.error);
      if (error instanceof GatewayError && error.status < 500 && error.status !== 408) return failServer(error.body?.message ?? error.message);
    }
    // The answer was lost (network, a gateway restart): the job may still finish; poll it.
    await this.progress(item.id, 'processing', null, jobId);
    const polled = await this.pollServer(jobId, signal);
    if (polled === 'done') return;
    if (polled.state === 'completed') return this.complete(item, [polled.answer.content], polled.answer.processing_time, false);
    if (polled.state === 'error') return failServer(polled.message, polled.code);
    return failServer(polled.state === 'timeout' ? 'timed out' : null);
  }

  private async pollServer(jobId: string, signal: AbortSignal): Promise<'done' | { state: 'completed'; answer: { content: string; processing_time: number } } | { state: 'error'; message: string; code?: string } | { state: 'timeout' } | { state: 'unknown' }> {
    try {
      return await pollJob(() => attachmentCalls.documentStatus(jobId, signal).catch((e: unknown) => {
        if (e instanceof GatewayError && e.status === 422) throw e;
        return { state: 'processing' as const };
      }), signal, this.poll);
    } catch (error) {
      if (signal.aborted) return 'done';
      if (error instanceof GatewayError) return { state: 'error', message: error.body?.message ?? error.message, ...(error.body?.error ? { code: error.body.error } : {}) };
      throw error;
    }
  }
}
