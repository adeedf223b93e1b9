/**
 * The OpenAI images API adapter (POST {url}/images/generations, and /images/edits with the input images for
 * image-to-image). LocalAI and other servers serve the same API. Images are asked for as b64_json; a server that
 * answers URLs anyway is read from its own origin, or from a public https address behind the scraper's SSRF guard
 * (../../providers/provider-urls.ts: never a private or local address it names). Every image is checked by its signature: bytes
 * that are not PNG, JPEG, WebP or GIF fail the call.
 */
import { sniffImage } from '../png';
import type { ImageJob, ImageProvider, ImageResult, ProviderImage } from './types';
import { fetchProviderFile } from '../../providers/provider-urls';

/** Largest image accepted from a provider. */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

export class OpenAiImageProvider implements ImageProvider {
  constructor(
    readonly id: string,
    private readonly baseUrl: string,
    private readonly key: string | null,
    private readonly timeoutMs = 120_000,
  ) {}

  async generate(job: ImageJob, signal: AbortSignal): Promise<ImageResult> {
    const size = `${job.width}x${job.height}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]);
    let res: Response;
    try {
      if (job.inputs.length === 0) {
        const body: Record<string, unknown> = { model: job.model, prompt: job.prompt, n: job.n, size, response_format: 'b64_json' };
        if (job.negativePrompt) body.negative_prompt = job.negativePrompt;
        if (job.seed !== undefined) body.seed = job.seed;
        res = await fetch(`${this.baseUrl}/images/generations`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: timeout });
      } else {
        const form = new FormData();
        form.set('model', job.model);
        form.set('prompt', job.prompt);
        form.set('n', String(job.n));
        form.set('size', size);
        form.set('response_format', 'b64_json');
        // An upscaling model (its id names one): the factor, 2, 3 or 4 (spec 001 section 9).
        if (job.upscaleFactor !== undefined) form.set('scale', String(job.upscaleFactor));
        const field = job.inputs.length > 1 ? 'image[]' : 'image';
        job.inputs.forEach((img, i) => form.append(field, new Blob([new Uint8Array(img.bytes)], { type: img.mime }), `input-${i}.${img.mime.split('/')[1] ?? 'png'}`));
        res = await fetch(`${this.baseUrl}/images/edits`, { method: 'POST', headers, body: form, signal: timeout });
      }
    } catch (e) {
      // undici says only "fetch failed"; the operator's log needs its cause (refused, reset, timed out).
      const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
      return { ok: false, status: 502, code: 'UPSTREAM_UNREACHABLE', message: `The image provider could not be reached: ${e instanceof Error ? e.message : String(e)}${cause}` };
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // handled below
    }
    if (!res.ok) {
      const err = (json as { error?: { message?: unknown; code?: unknown; type?: unknown } } | null)?.error;
      const code = typeof err?.code === 'string' ? err.code : typeof err?.type === 'string' ? err.type : 'UPSTREAM_ERROR';
      const message = typeof err?.message === 'string' ? err.message : `The image provider answered ${res.status}`;
      return { ok: false, status: res.status, code, message };
    }
    const data = (json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length === 0) return { ok: false, status: 502, code: 'BAD_UPSTREAM_ANSWER', message: 'The image provider answered without images' };
    const images: ProviderImage[] = [];
    for (const item of data) {
      const bytes = await this.imageBytes(item, timeout);
      if (bytes !== null && 'refused' in bytes) return { ok: false, status: 502, code: 'BAD_UPSTREAM_IMAGE', message: `The image could not be read: ${bytes.refused}` };
      const mime = bytes ? sniffImage(bytes) : null;
      if (!bytes || !mime) return { ok: false, status: 502, code: 'BAD_UPSTREAM_IMAGE', message: 'The image provider answered something that is not a PNG, JPEG, WebP or GIF image' };
      images.push({ bytes, mime });
    }
    return { ok: true, images };
  }

  /** The image's bytes, null for an answer without one, or why the URL it names was not read. */
  private async imageBytes(item: unknown, signal: AbortSignal): Promise<Uint8Array | { refused: string } | null> {
    if (typeof item !== 'object' || item === null) return null;
    const { b64_json: b64, url } = item as { b64_json?: unknown; url?: unknown };
    if (typeof b64 === 'string') {
      if (b64.length > (MAX_IMAGE_BYTES * 4) / 3 + 4) return null;
      return new Uint8Array(Buffer.from(b64, 'base64'));
    }
    if (typeof url !== 'string') return null;
    const file = await fetchProviderFile(url, this.baseUrl, { signal, maxBytes: MAX_IMAGE_BYTES });
    return file.ok ? file.bytes : { refused: file.message };
  }
}
