// Entry of a parse pool thread (./pool.ts): the gateway runs TypeScript through tsx, so the thread registers tsx
// before it loads the real entry (./worker.ts, or a test's).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
