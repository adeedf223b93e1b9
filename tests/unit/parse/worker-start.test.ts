/**
 * The real parse thread's start (src/server/parse/worker-boot.mjs, worker.ts): pdf.js is loaded natively before
 * tsx, and the thread says `ready: 'pdf'` (it reads PDFs) before it has loaded its other readers (`ready: true`),
 * so that the first PDF after a gateway start does not wait for officeparser and the rest. No timing asserted: the
 * order of the thread's messages and a PDF read in between.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import type { WorkerReply, WorkerRequest } from '../../../src/server/parse/jobs';
import { makePdf } from '../attachments/fixtures';

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

it('says it reads PDFs before its other readers are loaded, reads one then, and is wholly ready after', async () => {
  const worker = new Worker(new URL('../../../src/server/parse/worker-boot.mjs', import.meta.url), {
    execArgv: [],
    workerData: { entry: new URL('../../../src/server/parse/worker.ts', import.meta.url).href },
  });
  workers.push(worker);
  const seen: string[] = [];
  const pdf = makePdf(3, (n) => `Page ${n} of the first file after a start.`);
  const done = new Promise<string>((resolve, reject) => {
    let text = '';
    worker.on('error', reject);
    worker.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        seen.push(`ready:${String(reply.ready)}`);
        if (reply.ready === 'pdf') {
          const data = pdf.slice().buffer;
          worker.postMessage({ id: 1, job: { kind: 'document', ext: 'pdf', data } } satisfies WorkerRequest, [data]);
        }
      } else if ('id' in reply) {
        seen.push('answer');
        if (reply.ok) text = String(reply.value);
        else reject(new Error(reply.error));
      }
      if (seen.includes('answer') && seen.includes('ready:true')) resolve(text);
    });
  });
  const text = await done;
  expect(seen[0]).toBe('ready:pdf');
  expect(seen.filter((s) => s.startsWith('ready'))).toEqual(['ready:pdf', 'ready:true']);
  expect(text).toContain('Page 1 of the first file after a start.');
  expect(text).toContain('Page 3 of the first file after a start.');
}, 180_000);
