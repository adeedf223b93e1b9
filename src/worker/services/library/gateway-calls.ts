/** The engine's client of the attachment calls (spec 000 section 7), beside ../gateway.ts. */
import type { ImageDescriptionRequest, ImageDescriptionResponse, ProcessDocumentResponse } from '../../../protocol/attachments-api';
import { gatewayErrorOf as errorOf } from '../gateway';

export type JobStatus = { state: 'completed'; answer: ProcessDocumentResponse } | { state: 'processing' } | { state: 'unknown' };

export const attachmentCalls = {
  /** POST /api/process-document: the file as multipart, with the job id an engine taking over can ask about. */
  async processDocument(file: Blob, name: string, jobId: string, signal?: AbortSignal): Promise<ProcessDocumentResponse> {
    const form = new FormData();
    form.append('jobId', jobId);
    form.append('file', file, name);
    const res = await fetch('/api/process-document', { method: 'POST', credentials: 'same-origin', body: form, ...(signal ? { signal } : {}) });
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
    const res = await fetch('/api/image-description', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      ...(signal ? { signal } : {}),
    });
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
