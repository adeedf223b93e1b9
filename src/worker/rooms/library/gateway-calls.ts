/** The engine's client of the attachment calls (spec 000 section 7), beside ../../infra/gateway.ts. */
import type { ImageDescriptionRequest, ImageDescriptionResponse, ProcessDocumentResponse } from '../../../protocol/attachments-api';
import { gatewayErrorOf as errorOf } from '../../infra/gateway';

export type JobStatus = { state: 'completed'; answer: ProcessDocumentResponse } | { state: 'processing' } | { state: 'unknown' };

/** How many times an upload the gateway turned away for now (429 or 503 with Retry-After) is sent again. */
export const UPLOAD_RETRIES = 24;
/** The longest wait between two of those tries, ms, whatever Retry-After says. */
const MAX_RETRY_WAIT_MS = 30_000;

/** The wait a 429 or 503 asks for (its Retry-After in seconds), or null when the answer is final. */
export function retryAfterMs(res: Response): number | null {
  if (res.status !== 429 && res.status !== 503) return null;
  const seconds = Number(res.headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_WAIT_MS) : null;
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * POSTs an upload (a body made afresh for each try), sending it again when the gateway turns it away for now: it
 * caps the upload bytes it holds and the files waiting to be read (docs/gateway.md, "Untrusted content").
 * Answers the first final response.
 */
async function postUpload(path: string, init: () => RequestInit, signal?: AbortSignal): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(path, { method: 'POST', credentials: 'same-origin', ...init(), ...(signal ? { signal } : {}) });
    const later = retryAfterMs(res);
    if (later === null || attempt >= UPLOAD_RETRIES) return res;
    await res.body?.cancel();
    await wait(later, signal);
  }
}

export const attachmentCalls = {
  /** POST /api/process-document: the file as multipart, with the job id an engine taking over can ask about. */
  async processDocument(file: Blob, name: string, jobId: string, signal?: AbortSignal): Promise<ProcessDocumentResponse> {
    const res = await postUpload('/api/process-document', () => {
      const form = new FormData();
      form.append('jobId', jobId);
      form.append('file', file, name);
      return { body: form };
    }, signal);
    if (!res.ok) throw await errorOf(res);
    return (await res.json()) as ProcessDocumentResponse;
  },

  /** GET /api/process-document/status: the job's answer, still processing, or unknown to the gateway. */
  async documentStatus(jobId: string, signal?: AbortSignal): Promise<JobStatus> {
    const res = await fetch(`/api/process-document/status?jobId=${encodeURIComponent(jobId)}`, { credentials: 'same-origin', ...(signal ? { signal } : {}) });
    if (res.status === 404) return { state: 'unknown' };
    if (res.status === 202) return { state: 'processing' };
    if (!res.ok) throw await errorOf(res);
    return { state: 'completed', answer: (await res.json()) as ProcessDocumentResponse };
  },

  async describeImage(request: ImageDescriptionRequest, signal?: AbortSignal): Promise<ImageDescriptionResponse> {
    const body = JSON.stringify(request);
    const res = await postUpload('/api/image-description', () => ({ headers: { 'content-type': 'application/json' }, body }), signal);
    if (!res.ok) throw await errorOf(res);
    return (await res.json()) as ImageDescriptionResponse;
  },

  /** Fire-and-forget report of a file that could not be added (spec 000 section 7); failures are ignored. */
  reportUnsupported(filetype: string, sizeBytes: number): void {
    void fetch('/notion/unsupported-filetypes', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filetype: filetype === '' ? 'none' : filetype.slice(0, 32), filesizemb: Math.round((sizeBytes / (1024 * 1024)) * 1000) / 1000 }),
    }).catch(() => undefined);
  },
};
