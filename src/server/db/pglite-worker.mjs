// The database thread's entry (./pglite-thread.ts starts it). Plain JavaScript, so that it starts under tsx
// (`npm run serve`), vitest or plain node alike; it loads the TypeScript that does the work through tsx's API.
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { serveDatabase, errorFields } = await tsImport('./pglite-thread-job.ts', import.meta.url);
try {
  const handle = await serveDatabase(workerData.dataDir, (reply) => parentPort.postMessage(reply));
  parentPort.on('message', handle);
  parentPort.postMessage({ ready: true });
} catch (e) {
  parentPort.postMessage({ failed: errorFields(e) });
}
