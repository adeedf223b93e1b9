/**
 * A document worker thread (./pool.ts): reads one job at a time and answers { ok, value } or { ok: false, error }.
 * A job that exhausts the thread's memory limit kills only this thread.
 */
import { parentPort } from 'node:worker_threads';
import { extractText } from './extract';
import { describeFacts, imageFacts } from './image-facts';
import type { JobReply, JobRequest } from './pool';

parentPort?.on('message', (job: JobRequest) => {
  void (async (): Promise<JobReply> => {
    try {
      const data = new Uint8Array(job.data);
      const value = job.kind === 'extract' ? await extractText(data, job.ext) : describeFacts(await imageFacts(data));
      return { id: job.id, ok: true, value };
    } catch (error) {
      return { id: job.id, ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  })().then((reply) => parentPort?.postMessage(reply));
});
