/**
 * What holds add to a paid reply's time to first token: the same reply from the same fake upstream through the
 * same gateway, once on a priced model (bind the requestId, reserve the hold, then call the upstream) and once on
 * a free model (bind the requestId only, no hold), interleaved in one run after a warm-up. The figure is the
 * difference of the percentiles. Targets (issue 5): p50 added < 2 ms, p99 added < 5 ms.
 *
 * Issue 10 asks for the p99 that the charge adds to a paid reply: the same pairs also time the whole reply, until
 * its metadata tag (written after the settle, which is the charge), so the paid reply's end includes its reserve
 * and its charge while the free one's skips both (a free reply's $0 entry is written behind, after the reply).
 *
 * As in gateway-relay.bench.ts, the gateway and the fake upstream run in a child process (this file with
 * PARLEY_BENCH_CHILD=holds), so the client's reads do not wait on the gateway's event loop. The child credits
 * the session the client names on its stdin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startGateway } from '../../src/server/start';
import { startFakeUpstream } from '../unit/server/fake-upstream';
import { size } from './smoke';
import type { BenchResult } from './types';
import { percentile } from './stats';

const WARMUP = size(60, 2);
const ITERATIONS = size(500, 10);
/** Replies per block of the CPU measurement. */
const CPU_BLOCK = size(40, 2);
const FREE = 'bench-free';
const PAID = 'bench-paid';

/** Ms from t0 until the reply text holds 'Hello' (first) and until its metadata tag has arrived (whole). */
async function timeToFirst(res: Response, t0: number): Promise<{ first: number; whole: number }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let at = Number.NaN;
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    text += decoder.decode(r.value, { stream: true });
    if (Number.isNaN(at) && text.includes('Hello')) at = performance.now() - t0;
  }
  if (Number.isNaN(at)) throw new Error(`first token never seen in: ${text.slice(0, 200)}`);
  if (!text.includes('"cost"')) throw new Error(`no metadata in: ${text.slice(-200)}`);
  return { first: at, whole: performance.now() - t0 };
}

async function serveChild(): Promise<void> {
  const up = await startFakeUpstream(
    { steps: [{ content: 'Hello' }, { content: ' world' }], usage: { prompt_tokens: 3, completion_tokens: 2 } },
    { models: [FREE, PAID] },
  );
  const gw = await startGateway({
    port: 0,
    memory: true,
    // The database in its own thread, as the deployed gateway runs it (an in-memory one would share the event loop).
    dbThread: process.env.BENCH_DB_THREAD !== '0',
    inheritEnv: false,
    clientDir: null,
    env: {
      PARLEY_UPSTREAM_URL: up.url,
      PARLEY_UPSTREAM_MODELS: `${FREE},${PAID}`,
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ [PAID]: { input: '0.15', output: '0.6' } }),
      // One client sends 1,120 replies: the per-address limit on costly routes is not what is measured here.
      PARLEY_COSTLY_RATE_BURST: '1000000',
      PARLEY_COSTLY_RATE_PER_MIN: '60000000',
    },
    log: () => {},
  });
  process.stdout.write(`${JSON.stringify({ gateway: gw.url })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line === 'cpu') {
      const u = process.cpuUsage();
      process.stdout.write(`${u.user + u.system}\n`);
      return;
    }
    void gw.ledger
      .credit(line, { key: `bench:${line}`, usdMicro: 1_000_000_000n })
      .then(() => process.stdout.write('credited\n'));
  });
  lines.once('close', () => {
    void Promise.all([gw.close(), up.close()]).finally(() => process.exit(0));
  });
}

function startChild(): Promise<{ child: ChildProcess; next: () => Promise<string> }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, PARLEY_BENCH_CHILD: 'holds' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const queue: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  lines.on('line', (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else queue.push(l);
  });
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const l = queue.shift();
      if (l !== undefined) return resolve(l);
      const timer = setTimeout(() => reject(new Error('bench child did not answer within 300 s')), 300_000);
      waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  child.once('exit', (code) => {
    if (code !== 0) for (const w of waiters.splice(0)) w(`exit ${code}`);
  });
  return Promise.resolve({ child, next });
}

const entry = process.argv[1];
if (process.env.PARLEY_BENCH_CHILD === 'holds' && entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  await serveChild();
}

export default async function bench(): Promise<BenchResult[]> {
  const { child, next } = await startChild();
  try {
    const { gateway } = JSON.parse(await next()) as { gateway: string };
    const ls = await fetch(`${gateway}/auth/local-session`);
    const cookie = (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const session = (await ls.json()) as { data: { id: string } };
    child.stdin?.write(`${session.data.id}\n`);
    if ((await next()) !== 'credited') throw new Error('the bench session was not credited');
    const messages = [{ role: 'user', content: 'Say hello.' }];

    const ask = async (model: string): Promise<{ first: number; whole: number }> => {
      const body = JSON.stringify({ model, messages, conversationUUID: 'bench', requestId: randomUUID() });
      const t0 = performance.now();
      const res = await fetch(`${gateway}/api/stream-gpt`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body });
      if (res.status !== 200) throw new Error(`gateway answered ${res.status}: ${await res.text()}`);
      return timeToFirst(res, t0);
    };

    for (let i = 0; i < WARMUP; i++) {
      await ask(FREE);
      await ask(PAID);
    }
    const paid: number[] = [];
    const free: number[] = [];
    const paidWhole: number[] = [];
    const freeWhole: number[] = [];
    const keep = (t: { first: number; whole: number }, first: number[], whole: number[]): void => {
      first.push(t.first);
      whole.push(t.whole);
    };
    for (let i = 0; i < ITERATIONS; i++) {
      // Alternate the order so neither model always runs on a just-warmed connection.
      if (i % 2 === 0) {
        keep(await ask(FREE), free, freeWhole);
        keep(await ask(PAID), paid, paidWhole);
      } else {
        keep(await ask(PAID), paid, paidWhole);
        keep(await ask(FREE), free, freeWhole);
      }
    }
    // The gateway's CPU per reply, paid and free, in alternating blocks (its whole work: the hold's reserve and its
    // settle included). On a loaded machine this says more than the time percentiles, which the scheduler spreads.
    const cpuMs = async (): Promise<number> => {
      child.stdin?.write('cpu\n');
      return Number(await next()) / 1000;
    };
    let paidCpu = 0;
    let freeCpu = 0;
    for (let block = 0; block < 10; block++) {
      for (const model of block % 2 === 0 ? [PAID, FREE] : [FREE, PAID]) {
        const c0 = await cpuMs();
        for (let i = 0; i < CPU_BLOCK; i++) await ask(model);
        const used = (await cpuMs()) - c0;
        if (model === PAID) paidCpu += used;
        else freeCpu += used;
      }
    }
    const perPaid = paidCpu / (5 * CPU_BLOCK);
    const perFree = freeCpu / (5 * CPU_BLOCK);
    for (const xs of [paid, free, paidWhole, freeWhole]) xs.sort((a, b) => a - b);
    const load = `load ${loadavg()[0]?.toFixed(2)} on ${cpus().length} CPUs`;
    const row = (p: number, target: number): BenchResult => {
      const pp = percentile(paid, p);
      const pf = percentile(free, p);
      const added = pp - pf;
      return {
        name: `holds: time to first token of a paid reply, p${p} added`,
        unit: 'ms',
        value: added,
        baseline: pf,
        ratio: pp / pf,
        target: `p${p} added < ${target} ms`,
        pass: added < target,
        notes: `paid (hold) ${pp.toFixed(3)} ms vs free (no hold) ${pf.toFixed(3)} ms; ${ITERATIONS} each after ${WARMUP} warm-up; ${load}`,
      };
    };
    const wholeRow = (p: number): BenchResult => {
      const pp = percentile(paidWhole, p);
      const pf = percentile(freeWhole, p);
      return {
        name: `charge: whole paid reply (to its metadata, reserve + charge included), p${p} added`,
        unit: 'ms',
        value: pp - pf,
        baseline: pf,
        ratio: pp / pf,
        target: 'informational (issue 10: the p99 the charge adds to a paid reply)',
        pass: true,
        notes: `paid ${pp.toFixed(3)} ms vs free (no hold, no charge) ${pf.toFixed(3)} ms; same ${ITERATIONS} pairs; ${load}`,
      };
    };
    return [
      row(50, 2),
      row(99, 5),
      wholeRow(50),
      wholeRow(99),
      {
        name: 'holds: gateway CPU per paid reply (reserve + settle) vs per free reply',
        unit: 'ms',
        value: perPaid,
        baseline: perFree,
        ratio: perPaid / perFree,
        target: 'informational: what a hold costs the gateway in CPU, added',
        pass: true,
        notes: `added ${(perPaid - perFree).toFixed(3)} ms CPU per paid reply; ${5 * CPU_BLOCK} replies of each in alternating blocks; ${load}`,
      },
    ];
  } finally {
    await new Promise<void>((r) => {
      child.once('exit', () => r());
      child.stdin?.end();
      setTimeout(() => {
        child.kill();
        r();
      }, 5_000).unref();
    });
  }
}
