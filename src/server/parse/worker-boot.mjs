// Entry of a parse pool thread (./pool.ts): the gateway runs TypeScript through tsx, so the thread registers tsx
// before it loads the real entry (./worker.ts, or a test's).
import { setPriority } from 'node:os';
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

// pdf.js (1 MB) and its in-process worker (2 MB) are loaded natively, before tsx is registered: passed through tsx's
// loader they took 5-6 s of a thread's start, natively about 0.5 s. The readers' later imports of the same files
// find them loaded; pdf.js takes its worker from globalThis.pdfjsWorker instead of importing it on the first PDF.
await import('pdfjs-dist/legacy/build/pdf.mjs');
globalThis.pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
register();
await import(workerData.entry);

// Loaded (at the normal priority, so that a first item does not wait long for its thread), this thread now yields
// to the event loop's: on Linux the nice value is per thread, and pid 0 is the calling thread. On a busy machine a
// page or a file then takes longer to read rather than delaying every other request.
try {
  setPriority(0, 10);
} catch {
  // not permitted here: read at the normal priority
}
