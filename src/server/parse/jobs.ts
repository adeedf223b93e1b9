/**
 * What the parse pool's threads are asked (./pool.ts posts, ./worker.ts answers): every kind of untrusted content
 * the gateway reads. Bytes travel as ArrayBuffers of their own, transferred to the thread without a copy.
 */
import type { ExtractedPage } from './readers/page';
import type { PageKind } from '../net/fetch';
import type { UpscaleFactor } from '../../protocol/image-rules';

export type ParseJob =
  /** A document's text (./readers/document.ts). */
  | { kind: 'document'; ext: string; data: ArrayBuffer }
  /** The offline description of an image: size, colours, stored text (./readers/image-facts.ts). */
  | { kind: 'image'; data: ArrayBuffer }
  /** The offline Upscaler: the PNG of the image `factor` times larger (./readers/upscale.ts). */
  | { kind: 'upscale'; data: ArrayBuffer; factor: UpscaleFactor }
  /** A fetched page's readable title and text (./readers/page.ts). */
  | { kind: 'page'; url: string; pageKind: PageKind; charset: string | null; body: ArrayBuffer; truncated: boolean };

export type ParseJobKind = ParseJob['kind'];

/** What each kind of job answers. */
export interface ParseValue {
  document: string;
  image: string;
  page: ExtractedPage;
  upscale: Uint8Array;
}

/** An item to read, or (`warm`) the order to load the slow readers (pdf.js) by reading a tiny built-in file. */
export type WorkerRequest = { id: number; job: ParseJob } | { warm: true };
export type WorkerReply =
  /** The thread's readers are loaded; `'pdf'`: only the PDF reader so far, pdf.js warmed (the rest follows). */
  | { ready: true | 'pdf' }
  /** The warm-up is over (whether or not it read its file: a reader that fails here fails the same way later). */
  | { warmed: true }
  | { id: number; ok: true; value: ParseValue[ParseJobKind] }
  | { id: number; ok: false; error: string };

/** The bytes as an ArrayBuffer of their own, to transfer. A view of a larger or pooled buffer is copied. */
export function ownBuffer(data: Uint8Array): ArrayBuffer {
  if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer && !Buffer.isBuffer(data)) return data.buffer;
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return copy.buffer;
}

/** The buffers a job carries (transferred with it). */
export function transferList(job: ParseJob): ArrayBuffer[] {
  return [job.kind === 'page' ? job.body : job.data];
}
