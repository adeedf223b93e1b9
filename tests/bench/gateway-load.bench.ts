/**
 * Load through the gateway: 200 concurrent clients, each asking for one streamed chat reply after another, for
 * BENCH_LOAD_SECONDS (default 10; the issue's figure is 30: `BENCH_LOAD_SECONDS=30 npm run bench -- gateway-load`).
 * The same client then runs straight against the fake upstream for the same time (the baseline, same run).
 * Figures: replies per second and the p99 of a whole reply (request sent to last byte), and the gateway's heap
 * after GC at the start, right after the run, and once finished replies are past their retention time.
 *
 * Three processes, as in production: this client, the gateway (PGlite in memory) and the fake upstream, each
 * started from this file with PARLEY_BENCH_ROLE. The client uses node:http with a keep-alive agent (fetch costs
 * the client more CPU than the gateway on this 2-core machine). Each reply carries a requestId, as the engine's do.
 *
 * Targets (issue 18, tighter than issue 5's): at least half the direct figure with no error, p99 within 2x of
 * direct, heap back to its start. The same client also runs through a bare Node streaming proxy (./node-proxy.ts,
 * a fourth process) for the same time: what any relay written for Node reaches on this machine (informational).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startGateway } from '../../src/server/start';
import { startFakeUpstream } from '../unit/server/fake-upstream';
import { startNodeProxy } from './node-proxy';
import { size } from './smoke';
import type { BenchResult } from './types';
import { percentile } from './stats';

const MODEL = 'bench-model';
const CONCURRENCY = Number(process.env.BENCH_LOAD_CONCURRENCY ?? size(200, 10));
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? size(10, 1));
/** Finished replies are kept this long in the bench gateway, so that the last heap figure can be taken soon after. */
const RETAIN_MS = size(3000, 300);

/** A child process that prints one JSON line when ready and answers one line per command line on stdin. */
interface Child {
  proc: ChildProcess;
  ready: Record<string, string>;
  ask(cmd: string): Promise<string>;
  stop(): Promise<void>;
}

function startChild(role: 'gateway' | 'upstream' | 'node', env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url)], {
    env: { ...process.env, ...env, PARLEY_BENCH_ROLE: role },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Interface = createInterface({ input: proc.stdout as NonNullable<typeof proc.stdout> });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = (): Promise<string> => new Promise((r) => waiting.push(r));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bench ${role} did not start within 300 s`)), 300_000);
    proc.once('exit', (code) => reject(new Error(`bench ${role} exited with ${code}`)));
    void next().then((line) => {
      clearTimeout(timer);
      resolve({
        proc,
        ready: JSON.parse(line) as Record<string, string>,
        ask: (cmd) => {
          const answer = next();
          proc.stdin?.write(`${cmd}\n`);
          return answer;
        },
        stop: () =>
          new Promise<void>((r) => {
            proc.once('exit', () => r());
            proc.stdin?.end();
            setTimeout(() => {
              proc.kill();
              r();
            }, 5_000).unref();
          }),
      });
    });
  });
}

/** Child side: answers 'heap' with the heap used after GC, in bytes; exits when stdin ends. */
function serveCommands(onEnd: () => Promise<void>, extra: (cmd: string) => string | null = () => null): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  // How late the event loop runs a 10 ms timer: how long one piece of work held it (plus the scheduler's delays).
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (cmd) => {
    if (cmd === 'heap') {
      for (let i = 0; i < 3; i++) gc?.();
      process.stdout.write(`${process.memoryUsage().heapUsed}\n`);
    } else if (cmd === 'cpu') {
      const u = process.cpuUsage();
      process.stdout.write(`${u.user + u.system}\n`);
    } else if (cmd === 'loop-start') {
      loop.reset();
      loop.enable();
      process.stdout.write('ok\n');
    } else if (cmd === 'loop-stop') {
      loop.disable();
      process.stdout.write(`${JSON.stringify({ p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 })}\n`);
    } else process.stdout.write(`${extra(cmd) ?? 'unknown'}\n`);
  });
  rl.once('close', () => void onEnd().finally(() => process.exit(0)));
}

async function runUpstream(): Promise<void> {
  const up = await startFakeUpstream(
    { steps: [{ content: 'Hello' }, { content: ' world' }, { content: ', and welcome.' }], usage: { prompt_tokens: 12, completion_tokens: 5 } },
    { models: [MODEL] },
  );
  // The fake records every request; a load run would keep them all.
  setInterval(() => (up.requests.length = 0), 200).unref();
  process.stdout.write(`${JSON.stringify({ url: up.url })}\n`);
  serveCommands(() => up.close());
}

/**
 * BENCH_PROFILE=file.cpuprofile: the gateway records a CPU profile of the timed run only (open it in Chrome's
 * DevTools), and counts the database statements it ran per kind (printed with the results). With it,
 * BENCH_HEAP_PROFILE=file.heapprofile also samples what the gateway allocates during the run.
 */
function probeGateway(db: { query: (...a: never[]) => Promise<unknown>; transaction: (...a: never[]) => Promise<unknown> }): (cmd: string) => string | null {
  // Per kind of statement: how many, their total and their longest time (the wait for PGlite's queue included).
  const counts = new Map<string, { n: number; ms: number; max: number }>();
  const count = (what: string, ms: number): void => {
    const c = counts.get(what) ?? { n: 0, ms: 0, max: 0 };
    counts.set(what, { n: c.n + 1, ms: c.ms + ms, max: Math.max(c.max, ms) });
  };
  const wrap = <F extends (...a: never[]) => Promise<unknown>>(fn: F, label: (a: unknown[]) => string): F =>
    ((...args: never[]) => {
      const t0 = performance.now();
      return fn(...args).finally(() => count(label(args), performance.now() - t0));
    }) as F;
  const statement = (a: unknown[]): string => String(a[0]).replace(/\s+/g, ' ').trim().slice(0, 70);
  db.query = wrap(db.query.bind(db), statement);
  db.transaction = wrap(db.transaction.bind(db), () => 'BEGIN ... COMMIT (transaction)');
  const heapFile = process.env.BENCH_HEAP_PROFILE;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object): Promise<unknown> =>
    new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
  return (cmd) => {
    if (cmd === 'prof-start') {
      counts.clear();
      void post('Profiler.enable').then(() => post('Profiler.start'));
      if (heapFile) void post('HeapProfiler.enable').then(() => post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }));
      return 'ok';
    }
    if (cmd === 'prof-stop') {
      void post('Profiler.stop').then((r) => writeFileSync(process.env.BENCH_PROFILE ?? 'gateway.cpuprofile', JSON.stringify((r as { profile: unknown }).profile)));
      if (heapFile) void post('HeapProfiler.stopSampling').then((r) => writeFileSync(heapFile, JSON.stringify((r as { profile: unknown }).profile)));
      return JSON.stringify(
        Object.fromEntries([...counts].sort((x, y) => y[1].n - x[1].n).map(([k, c]) => [k, `${c.n} statements, ${c.ms.toFixed(0)} ms in all, longest ${c.max.toFixed(1)} ms`])),
      );
    }
    return null;
  };
}

async function runGateway(): Promise<void> {
  const gw = await startGateway({
    port: 0,
    memory: true,
    // The database in its own thread, as the deployed gateway runs it (an in-memory one would share the event loop).
    dbThread: process.env.BENCH_DB_THREAD !== '0',
    inheritEnv: false,
    clientDir: null,
    env: {
      PARLEY_UPSTREAM_URL: process.env.BENCH_UPSTREAM_URL ?? '',
      PARLEY_UPSTREAM_MODELS: MODEL,
      PARLEY_REPLY_RETAIN_MS: String(RETAIN_MS),
      // One client address sends everything here: the per-address limit on costly routes must not be what is measured
      // (its bucket is still taken for every reply, as in production).
      PARLEY_COSTLY_RATE_BURST: '1000000',
      PARLEY_COSTLY_RATE_PER_MIN: '60000000',
    },
    log: () => {},
  });
  process.stdout.write(`${JSON.stringify({ url: gw.url })}\n`);
  const probe = process.env.BENCH_PROFILE ? probeGateway(gw.db as never) : undefined;
  serveCommands(() => gw.close(), probe);
}

async function runNodeProxy(): Promise<void> {
  const proxy = await startNodeProxy(process.env.BENCH_UPSTREAM_URL ?? '');
  process.stdout.write(`${JSON.stringify({ url: proxy.url })}\n`);
  serveCommands(() => proxy.close());
}

const entry = process.argv[1];
const role = process.env.PARLEY_BENCH_ROLE;
if (role !== undefined && entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  if (role === 'upstream') await runUpstream();
  else if (role === 'node') await runNodeProxy();
  else await runGateway();
}

interface RunResult {
  replies: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  /** Replies that took over a second. */
  overOneSecond: number;
  errors: number;
  /** Failed replies by HTTP status (0: connection error or no metadata). */
  failures: Record<number, number>;
}

/** CONCURRENCY loops, each sending one request after another for `seconds`; a reply counts once fully read. */
/** One keep-alive agent per target, so the timed runs reuse the connections their warm-up opened. */
const agents = new Map<string, Agent>();

async function load(url: URL, headers: Record<string, string>, body: (i: number) => string, expect: string, seconds: number): Promise<RunResult> {
  let agent = agents.get(url.host);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, maxFreeSockets: CONCURRENCY });
    agents.set(url.host, agent);
  }
  const times: number[] = [];
  let errors = 0;
  const failures: Record<number, number> = {};
  const fail = (status: number): void => {
    errors++;
    failures[status] = (failures[status] ?? 0) + 1;
  };
  let seq = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const payload = body(seq++);
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            if (res.statusCode === 200 && text.includes(expect)) times.push(performance.now() - t0);
            else fail(res.statusCode === 200 ? 0 : (res.statusCode ?? 0));
            resolve();
          });
          res.on('error', () => {
            fail(0);
            resolve();
          });
        },
      );
      req.on('error', () => {
        fail(0);
        resolve();
      });
      req.end(payload);
    });
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  return {
    replies: times.length,
    perSecond: times.length / elapsed,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times[times.length - 1] ?? Number.NaN,
    overOneSecond: times.filter((t) => t > 1000).length,
    errors,
    failures,
  };
}

export default async function bench(): Promise<BenchResult[]> {
  const upstream = await startChild('upstream', {});
  const gateway = await startChild('gateway', { BENCH_UPSTREAM_URL: upstream.ready.url ?? '' });
  const nodeProxy = await startChild('node', { BENCH_UPSTREAM_URL: upstream.ready.url ?? '' });
  try {
    const gwUrl = gateway.ready.url ?? '';
    const ls = await fetch(`${gwUrl}/auth/local-session`);
    const cookie = (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    await ls.arrayBuffer();
    const messages = [{ role: 'user', content: 'Say hello, and welcome me to the benchmark.' }];
    const run = Date.now().toString(36);
    const viaGateway = (seconds: number): Promise<RunResult> =>
      load(
        new URL(`${gwUrl}/api/stream-gpt`),
        { cookie, 'content-type': 'application/json' },
        (i) => JSON.stringify({ model: MODEL, messages, conversationUUID: 'bench', requestId: `load-${run}-${seconds}-${i}` }),
        '<metadata>',
        seconds,
      );
    const directBody = JSON.stringify({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } });
    const direct = (seconds: number): Promise<RunResult> =>
      load(new URL(`${upstream.ready.url}/chat/completions`), { 'content-type': 'application/json', accept: 'text/event-stream' }, () => directBody, '[DONE]', seconds);

    const viaNode = (seconds: number): Promise<RunResult> =>
      load(new URL(`${nodeProxy.ready.url}/chat/completions`), { 'content-type': 'application/json', accept: 'text/event-stream' }, () => directBody, '[DONE]', seconds);

    // Warm-up of the paths (JIT, connections), then the heap the gateway starts from.
    await direct(1);
    await viaNode(1);
    await viaGateway(2);
    await new Promise((r) => setTimeout(r, RETAIN_MS + 1000));
    const heapStart = Number(await gateway.ask('heap'));
    const profiling = process.env.BENCH_PROFILE !== undefined;
    const cpuOf = async (child: Child): Promise<number> => Number(await child.ask('cpu')) / 1000;
    if (profiling) await gateway.ask('prof-start');
    const gatewayCpu0 = await cpuOf(gateway);
    const upstreamCpu0 = await cpuOf(upstream);
    const loadDuring = loadavg()[0] ?? Number.NaN;
    await gateway.ask('loop-start');
    const g = await viaGateway(SECONDS);
    const loopDelay = JSON.parse(await gateway.ask('loop-stop')) as { p50: number; p99: number; max: number };
    const gatewayCpuMs = (await cpuOf(gateway)) - gatewayCpu0;
    const upstreamCpuMs = (await cpuOf(upstream)) - upstreamCpu0;
    if (profiling) console.log(`database statements during the run (${g.replies} replies): ${await gateway.ask('prof-stop')}`);
    const heapAfter = Number(await gateway.ask('heap'));
    const directCpu0 = await cpuOf(upstream);
    const d = await direct(SECONDS);
    const directCpuMs = (await cpuOf(upstream)) - directCpu0;
    // By now (the direct run took SECONDS) the finished replies are past their retention time.
    await new Promise((r) => setTimeout(r, RETAIN_MS + 1000));
    const heapSettled = Number(await gateway.ask('heap'));
    const nodeCpu0 = await cpuOf(nodeProxy);
    const n = await viaNode(SECONDS);
    const nodeCpuMs = (await cpuOf(nodeProxy)) - nodeCpu0;

    const load1 = `load ${loadavg()[0]?.toFixed(2)} on ${cpus().length} CPUs`;
    const setup = `${CONCURRENCY} concurrent for ${SECONDS} s; ${load1}`;
    const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;
    return [
      {
        name: 'gateway load: replies per second, through the gateway vs straight to the upstream',
        unit: 'replies/s',
        value: g.perSecond,
        baseline: d.perSecond,
        ratio: g.perSecond / d.perSecond,
        target: '>= half the direct figure, no error',
        pass: g.perSecond >= d.perSecond / 2 && g.errors === 0,
        notes: `${g.replies} replies (${g.errors} errors ${JSON.stringify(g.failures)}) vs ${d.replies} direct (${d.errors} errors); ${setup}`,
      },
      {
        name: 'gateway load: p99 of a whole reply',
        unit: 'ms',
        value: g.p99,
        baseline: d.p99,
        ratio: g.p99 / d.p99,
        target: 'p99 <= 2x direct',
        pass: g.p99 <= 2 * d.p99,
        notes: `p50 ${g.p50.toFixed(1)} ms (direct ${d.p50.toFixed(1)} ms), max ${g.max.toFixed(0)} ms, ${g.overOneSecond} over 1 s; gateway event-loop delay p50 ${loopDelay.p50.toFixed(1)} ms, p99 ${loopDelay.p99.toFixed(1)} ms, max ${loopDelay.max.toFixed(0)} ms; ${setup}`,
      },
      {
        name: 'gateway load: heap after GC once replies are past retention, vs at the start',
        unit: 'MB',
        value: heapSettled / 1024 / 1024,
        baseline: heapStart / 1024 / 1024,
        ratio: heapSettled / heapStart,
        target: 'back to its start (ratio <= 1.1)',
        pass: heapSettled <= heapStart * 1.1,
        notes: `start ${mb(heapStart)}, right after the run ${mb(heapAfter)} (finished replies still kept ${RETAIN_MS / 1000} s), settled ${mb(heapSettled)}`,
      },
      {
        name: 'gateway load: gateway CPU per reply (user + system), vs the fake upstream CPU per direct reply',
        unit: 'ms',
        value: gatewayCpuMs / g.replies,
        baseline: directCpuMs / d.replies,
        ratio: gatewayCpuMs / g.replies / (directCpuMs / d.replies),
        target: '< 1 ms (1,000 replies/s on one core)',
        pass: gatewayCpuMs / g.replies < 1,
        notes: `gateway ${gatewayCpuMs.toFixed(0)} ms CPU over ${g.replies} replies; the upstream used ${(upstreamCpuMs / g.replies).toFixed(3)} ms per reply during the gateway run; load ${loadDuring.toFixed(2)} at the start of the run`,
      },
      {
        name: 'gateway load (informational): a bare Node streaming proxy, replies per second vs straight to the upstream',
        unit: 'replies/s',
        value: n.perSecond,
        baseline: d.perSecond,
        ratio: n.perSecond / d.perSecond,
        target: 'informational: what any relay written for Node reaches here',
        pass: true,
        notes: `p99 ${n.p99.toFixed(1)} ms (${(n.p99 / d.p99).toFixed(2)}x direct), p50 ${n.p50.toFixed(1)} ms; ${n.errors} errors; the proxy's CPU per reply ${(nodeCpuMs / n.replies).toFixed(3)} ms; the gateway: ${(g.perSecond / n.perSecond).toFixed(2)}x its replies/s; ${setup}`,
      },
    ];
  } finally {
    for (const a of agents.values()) a.destroy();
    agents.clear();
    await Promise.all([gateway.stop(), nodeProxy.stop(), upstream.stop()]);
  }
}
