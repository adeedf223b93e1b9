/**
 * Starts a file worker (./attachments/file-worker.ts) for one job and ends it when the job is done, so that a
 * long compression or PDF never holds the engine worker (which keeps streaming replies and answering queries).
 */
import * as Comlink from 'comlink';
import type { FileWorkerApi } from './attachments/file-worker';

export async function withFileWorker<T>(job: (api: Comlink.Remote<FileWorkerApi>) => Promise<T>): Promise<T> {
  const worker = new Worker(new URL('./attachments/file-worker.ts', import.meta.url), { type: 'module', name: 'parley-file' });
  const api = Comlink.wrap<FileWorkerApi>(worker);
  try {
    return await job(api);
  } finally {
    api[Comlink.releaseProxy]();
    worker.terminate();
  }
}
