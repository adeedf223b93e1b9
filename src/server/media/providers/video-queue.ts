/**
 * A job-based video provider with the shape of fal's queue API:
 *   POST {url}/{model}                    -> { request_id, status_url?, response_url? }
 *   GET  {url}/{model}/requests/{id}/status -> { status: IN_QUEUE | IN_PROGRESS | COMPLETED | FAILED | ERROR | CANCELLED }
 *   GET  {url}/{model}/requests/{id}      -> { video: { url } } (or video_url)
 * with `Authorization: Key {key}`. The finished video is downloaded by the gateway (bounded in size and time) and
 * kept with the job, so the browser plays it from the gateway's own origin (the CSP stays 'self'). URLs the
 * provider answers go through ../../providers/provider-urls.ts: the status and result URLs (which get the key) only on the
 * provider's own origin, the video file there or on a public https address (the scraper's SSRF guard).
 */
import type { VideoJobInput, VideoPoll, VideoProvider } from './types';
import { TransientProviderError } from './types';
import { fetchProviderFile, onProviderOrigin } from '../../providers/provider-urls';

const MAX_VIDEO_BYTES = 200 * 1024 * 1024;
const FAILED = new Set(['FAILED', 'ERROR', 'CANCELLED']);

interface QueueHandle {
  id: string;
  statusUrl: string;
  responseUrl: string;
}

export class QueueVideoProvider implements VideoProvider {
  constructor(
    readonly id: string,
    private readonly baseUrl: string,
    private readonly key: string | null,
    private readonly timeoutMs = 60_000,
  ) {}

  private headers(json = false): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json' };
    if (json) h['content-type'] = 'application/json';
    if (this.key) h.authorization = `Key ${this.key}`;
    return h;
  }

  async submit(job: VideoJobInput, _runId: string, signal: AbortSignal): Promise<string> {
    const body: Record<string, unknown> = { prompt: job.prompt, ...job.settings };
    if (job.imageDataUrl) body.image_url = job.imageDataUrl;
    const res = await this.fetch(`${this.baseUrl}/${job.model}`, { method: 'POST', headers: this.headers(true), body: JSON.stringify(body) }, signal);
    const json = (await res.json().catch(() => null)) as { request_id?: unknown; status_url?: unknown; response_url?: unknown; detail?: unknown; error?: unknown } | null;
    if (!res.ok) {
      const detail = typeof json?.detail === 'string' ? json.detail : typeof json?.error === 'string' ? json.error : `The video provider answered ${res.status}`;
      if (res.status >= 500 || res.status === 429) throw new TransientProviderError(detail);
      throw new Error(detail);
    }
    if (typeof json?.request_id !== 'string' || json.request_id === '') throw new Error('The video provider answered without a request id');
    const id = json.request_id;
    const base = `${this.baseUrl}/${job.model}/requests/${encodeURIComponent(id)}`;
    const handle: QueueHandle = {
      id,
      statusUrl: (typeof json.status_url === 'string' && onProviderOrigin(json.status_url, this.baseUrl)) || `${base}/status`,
      responseUrl: (typeof json.response_url === 'string' && onProviderOrigin(json.response_url, this.baseUrl)) || base,
    };
    return JSON.stringify(handle);
  }

  async poll(providerJobId: string, _job: VideoJobInput, signal: AbortSignal): Promise<VideoPoll> {
    const handle = JSON.parse(providerJobId) as QueueHandle;
    const res = await this.fetch(handle.statusUrl, { headers: this.headers() }, signal);
    if (!res.ok) throw new TransientProviderError(`The video status endpoint answered ${res.status}`);
    const json = (await res.json().catch(() => null)) as { status?: unknown; error?: unknown } | null;
    const status = typeof json?.status === 'string' ? json.status.toUpperCase() : '';
    if (FAILED.has(status)) {
      return { state: 'failed', status: status as 'FAILED' | 'ERROR' | 'CANCELLED', message: typeof json?.error === 'string' ? json.error : `The video job ended with ${status}` };
    }
    if (status !== 'COMPLETED') return { state: 'running', status: status === 'IN_QUEUE' ? 'IN_QUEUE' : 'IN_PROGRESS' };
    const done = await this.fetch(handle.responseUrl, { headers: this.headers() }, signal);
    if (!done.ok) throw new TransientProviderError(`The video result answered ${done.status}`);
    const result = (await done.json().catch(() => null)) as { video?: { url?: unknown }; video_url?: unknown } | null;
    const raw = typeof result?.video?.url === 'string' ? result.video.url : typeof result?.video_url === 'string' ? result.video_url : null;
    if (raw === null) return { state: 'failed', status: 'ERROR', message: 'Failed to generate video - unexpected response structure...' };
    const file = await fetchProviderFile(raw, this.baseUrl, { signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]), maxBytes: MAX_VIDEO_BYTES });
    if (!file.ok && file.unreachable) throw new TransientProviderError(`The video provider could not be reached: ${file.message}`);
    if (!file.ok) {
      const why = file.status !== null ? ` (HTTP ${file.status})` : `: ${file.message}`;
      return { state: 'failed', status: 'ERROR', message: `The generated video could not be downloaded${why}` };
    }
    const bytes = file.bytes;
    const mime = sniffVideo(bytes);
    if (!mime) return { state: 'failed', status: 'ERROR', message: 'The video provider answered something that is not an MP4 or WebM video' };
    return { state: 'completed', video: { bytes, mime } };
  }

  private async fetch(url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]) });
    } catch (e) {
      throw new TransientProviderError(`The video provider could not be reached: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** MP4 ('ftyp' box first) or WebM (EBML header), else null. */
export function sniffVideo(bytes: Uint8Array): 'video/mp4' | 'video/webm' | null {
  if (bytes.length >= 8 && bytes[4] === 0x66 && bytes[5] === 0x74 && bytes[6] === 0x79 && bytes[7] === 0x70) return 'video/mp4';
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'video/webm';
  return null;
}
