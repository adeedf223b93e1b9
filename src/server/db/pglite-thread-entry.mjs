// The database thread's entry (./pglite-thread.ts starts it). Plain JavaScript, so that it starts under tsx (`npm
// run serve`), vitest or plain node alike; it loads the TypeScript that does the work through tsx's API.
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { DbThreadJobs, errorFields } = await tsImport('./pglite-thread-job.ts', import.meta.url);
let jobs;
try {
  jobs = await DbThreadJobs.start(workerData.dataDir);
} catch (e) {
  parentPort.postMessage({ failed: errorFields(e) });
}
if (jobs) {
  // Requests are handled as they come, like calls on one PGlite in one thread: PGlite queues its own statements.
  parentPort.on('message', (req) => {
    void jobs.handle(req).then((reply) => {
      try {
        parentPort.postMessage(reply);
      } catch (e) {
        // A value that cannot cross threads: that call fails, the thread goes on.
        parentPort.postMessage({ id: req.id, error: errorFields(e) });
      }
    });
  });
  parentPort.postMessage({ ready: true });
}
