/**
 * A parse pool thread (./pool.ts): reads one item at a time and answers its value or why it could not be read.
 * Everything it runs is bounded by the pool: an item over its time budget or its thread's heap limit ends the
 * thread, never the gateway.
 *
 * It starts in two steps, so that the first PDF after a gateway start does not wait for the other readers: pdf.js
 * is already loaded (natively, ./worker-boot.mjs) and the PDF reader is small, so the thread reads a tiny PDF (which
 * sets up pdf.js's in-process worker) and says `ready: 'pdf'` (it takes PDFs); then it loads the other readers
 * (officeparser and the rest: seconds through tsx on a busy machine) and says `ready: true`. The pool gives a thread
 * other items only once it is wholly ready, so an item's budget is spent on reading it, not on loading code.
 */
import { parentPort } from 'node:worker_threads';
import { extractPdf } from './readers/pdf';
import { warmPdf } from './readers/warm-pdf';
import type { ParseJob, ParseValue, WorkerReply, WorkerRequest } from './jobs';

// A reader library prints parse warnings on the console (xmldom on a damaged XML part): an item's failure is its
// error message, never stderr noise.
console.warn = () => undefined;
console.error = () => undefined;
console.log = () => undefined;

const loadReaders = async () => {
  const [document, images, page, upscale] = await Promise.all([import('./readers/document'), import('./readers/image-facts'), import('./readers/page'), import('./readers/upscale')]);
  return { extractText: document.extractText, imageFacts: images.imageFacts, describeFacts: images.describeFacts, extractPage: page.extractPage, upscaleImage: upscale.upscaleImage };
};
let readers: ReturnType<typeof loadReaders> | null = null;

async function read(job: ParseJob): Promise<ParseValue[ParseJob['kind']]> {
  if (job.kind === 'document' && job.ext === 'pdf') return extractPdf(new Uint8Array(job.data));
  const r = await (readers ??= loadReaders());
  switch (job.kind) {
    case 'document':
      return r.extractText(new Uint8Array(job.data), job.ext);
    case 'image':
      return r.describeFacts(await r.imageFacts(new Uint8Array(job.data)));
    case 'upscale':
      return r.upscaleImage(new Uint8Array(job.data), job.factor);
    case 'page':
      return r.extractPage({ url: job.url, kind: job.pageKind, charset: job.charset, body: Buffer.from(job.body), truncated: job.truncated });
  }
}

const warmUp = (): Promise<void> => extractPdf(warmPdf()).then(
  () => undefined,
  () => undefined,
);

parentPort?.on('message', (request: WorkerRequest) => {
  if ('warm' in request) {
    // This thread warmed itself before it said it was ready; an entry that does not (a test's) is asked by the pool.
    void warmUp().then(() => parentPort?.postMessage({ warmed: true } satisfies WorkerReply));
    return;
  }
  void read(request.job).then(
    (value): WorkerReply => ({ id: request.id, ok: true, value }),
    (error: unknown): WorkerReply => ({ id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  ).then((reply) => parentPort?.postMessage(reply));
});

await warmUp();
parentPort?.postMessage({ ready: 'pdf' } satisfies WorkerReply);
await (readers ??= loadReaders());
parentPort?.postMessage({ ready: true } satisfies WorkerReply);
