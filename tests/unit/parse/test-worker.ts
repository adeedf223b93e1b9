/**
 * A stand-in parse pool thread for the pool's own tests (tests/unit/parse/pool.test.ts): it speaks the real
 * thread's protocol (src/server/parse/jobs.ts) and does what a document job's `ext` says, so that the scheduling,
 * the budgets and the recovery can be tested without real parsers:
 *   'echo:TEXT' answers TEXT; 'sleep:MS:TEXT' answers TEXT after MS (the thread stays free to answer);
 *   'spin' never answers (a busy loop); 'crash' ends the thread; 'oom' allocates until the heap limit;
 *   'fail:TEXT' answers the reader's refusal TEXT.
 * A warm-up takes PARLEY_TEST_WARM_MS (default 50) and keeps the thread busy meanwhile, as loading pdf.js does.
 * With PARLEY_TEST_PDF_FIRST_MS the thread starts as the real one does: `ready: 'pdf'` at once (it reads a `pdf`
 * item, answering 'pdf read'), `ready: true` that many ms later.
 */
import { parentPort } from 'node:worker_threads';
import type { WorkerReply, WorkerRequest } from '../../../src/server/parse/jobs';

const reply = (r: WorkerReply): void => parentPort?.postMessage(r);

parentPort?.on('message', (request: WorkerRequest) => {
  if ('warm' in request) {
    const until = Date.now() + Number(process.env.PARLEY_TEST_WARM_MS ?? 50);
    while (Date.now() < until); // busy, like a module being compiled
    reply({ warmed: true });
    return;
  }
  const { id, job } = request;
  const command = job.kind === 'document' ? (job.ext === 'pdf' ? 'echo:pdf read' : job.ext) : 'echo:not a document';
  const [verb = '', arg = '', rest = ''] = command.split(':');
  if (verb === 'echo') reply({ id, ok: true, value: arg });
  else if (verb === 'sleep') setTimeout(() => reply({ id, ok: true, value: rest }), Number(arg));
  else if (verb === 'fail') reply({ id, ok: false, error: arg });
  else if (verb === 'crash') process.exit(3);
  else if (verb === 'spin') for (;;);
  else if (verb === 'oom') {
    const hoard: number[][] = [];
    // 16 MB a step: the heap limit in a few steps and a few collections (100,000 numbers a step took over 30 s of
    // collections near the limit on a machine under CPU hogs, past the item's budget).
    for (;;) hoard.push(new Array<number>(2_000_000).fill(1.5));
  }
});
const pdfFirst = process.env.PARLEY_TEST_PDF_FIRST_MS;
if (pdfFirst === undefined) reply({ ready: true });
else {
  reply({ ready: 'pdf' });
  setTimeout(() => reply({ ready: true }), Number(pdfFirst)).unref();
}
