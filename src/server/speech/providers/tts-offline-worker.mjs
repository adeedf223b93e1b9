// The offline voice's worker entry (./tts-offline.ts starts it). Plain JavaScript, so that it starts under tsx
// (`npm run serve`), vitest or plain node alike; it loads the TypeScript that does the work through tsx's API.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

// Synthesis yields to the event loop's thread: on Linux the nice value is per thread (pid 0 = this thread).
try {
  setPriority(0, 10);
} catch {
  // not permitted here: run at the normal priority
}

const { synthesizeOffline } = await tsImport('./tts-offline-job.ts', import.meta.url);
parentPort.on('message', async (msg) => {
  try {
    const wav = await synthesizeOffline(msg.job);
    parentPort.postMessage({ id: msg.id, wav }, [wav.buffer]);
  } catch (e) {
    parentPort.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) });
  }
});
parentPort.postMessage({ ready: true });
