// The body worker's entry (./parse-pool.ts starts it). Plain JavaScript, so that it starts under tsx (`npm run
// serve`), vitest or plain node alike; it loads the TypeScript that does the work through tsx's API.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

// This thread yields to the event loop's: on Linux the nice value is per thread, and pid 0 is the calling thread.
// On a busy machine a large body then takes longer to parse rather than delaying every other request.
try {
  setPriority(0, 10);
} catch {
  // not permitted here: parse at the normal priority
}

const { handleJob } = await tsImport('./parse-worker-job.ts', import.meta.url);
parentPort.on('message', (job) => {
  const { reply, transfer } = handleJob(job);
  parentPort.postMessage(reply, transfer);
});
parentPort.postMessage({ ready: true });
