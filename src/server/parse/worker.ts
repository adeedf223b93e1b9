/**
 * A parse pool thread (./pool.ts): reads one item at a time and answers its value or why it could not be read.
 * Everything it runs is bounded by the pool: an item over its time budget or its thread's heap limit ends the
 * thread, never the gateway. It says it is ready once the readers are loaded, so an item's budget is spent on
 * reading it, not on loading code.
 */
import { parentPort } from 'node:worker_threads';
import { extractText } from './readers/document';
import { describeFacts, imageFacts } from './readers/image-facts';
import { extractPage } from './readers/page';
import { upscaleImage } from './readers/upscale';
import { warmPdf } from './readers/warm-pdf';
import type { ParseJob, ParseValue, WorkerReply, WorkerRequest } from './jobs';

async function read(job: ParseJob): Promise<ParseValue[ParseJob['kind']]> {
  switch (job.kind) {
    case 'document':
      return extractText(new Uint8Array(job.data), job.ext);
    case 'image':
      return describeFacts(await imageFacts(new Uint8Array(job.data)));
    case 'upscale':
      return upscaleImage(new Uint8Array(job.data), job.factor);
    case 'page':
      return extractPage({ url: job.url, kind: job.pageKind, charset: job.charset, body: Buffer.from(job.body), truncated: job.truncated });
  }
}

parentPort?.on('message', (request: WorkerRequest) => {
  if ('warm' in request) {
    // Loads pdf.js by reading a tiny PDF; the pool sends this only to an idle thread, when nothing waits.
    void extractText(warmPdf(), 'pdf').then(
      () => undefined,
      () => undefined,
    ).then(() => parentPort?.postMessage({ warmed: true } satisfies WorkerReply));
    return;
  }
  void read(request.job).then(
    (value): WorkerReply => ({ id: request.id, ok: true, value }),
    (error: unknown): WorkerReply => ({ id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  ).then((reply) => parentPort?.postMessage(reply));
});
// A reader library prints parse warnings on the console (xmldom on a damaged XML part): an item's failure is its
// error message, never stderr noise.
console.warn = () => undefined;
console.error = () => undefined;
console.log = () => undefined;
parentPort?.postMessage({ ready: true } satisfies WorkerReply);
