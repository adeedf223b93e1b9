/**
 * What the gateway costs a reply, against nginx in the same run (issue 18): `npm run bench -- relay`.
 *
 * One loopback upstream (the fake OpenAI upstream, a fixed 20-chunk streamed reply) reached four ways:
 *  - direct: straight to the upstream;
 *  - nginx: Debian's nginx as a plain streaming proxy (its own temporary config, one worker, proxy_buffering off,
 *    keep-alive to the upstream), the floor any relay can be held to;
 *  - free: through the gateway on a free model (requestId bound, $0 entry written behind);
 *  - priced: through the gateway on a priced model (hold reserved before the upstream is called, settled after);
 *  - node (informational): a bare Node streaming proxy (node:http in and out, a keep-alive agent, bytes passed on
 *    as they come, nothing parsed): what any relay written for Node costs before it does anything of its own.
 * The figure is the time to the first content byte (request sent to the first byte of the reply's text), p50 and p99,
 * sequential (one request at a time) and at 50 concurrent clients. The paths alternate in rounds, in a rotating
 * order, so machine noise hits all alike.
 *
 * Processes: this client (node:http, one keep-alive agent per path), the upstream and the gateway (PGlite in
 * memory) each in a child started from this file with PARLEY_BENCH_RELAY (in this process in a smoke run), and nginx. nginx is installed with
 * apt-get when it is missing (full run only); a smoke run without it skips the nginx path and says so, and its
 * ratios are then to direct. BENCH_CPU_PROF_DIR=dir writes the gateway's CPU profile (node --cpu-prof) there;
 * BENCH_RELAY_PATHS=free (a comma list of paths) times only those, so that a profile past "warmed up" is one path's
 * (read it with scripts/cpuprofile-top.mjs --from SECONDS).
 * BENCH_RELAY_BASE=dir (another checkout, e.g. `git worktree add /tmp/base main`) also starts that checkout's gateway
 * and times it as the paths free-base and priced-base in the same rounds: a change's CPU per reply against its base
 * under the same machine load, which on a shared machine moves the absolute figures more than most changes do.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SMOKE, size } from './smoke';
import { ensureNginx, startNginx, type Nginx } from './nginx';
import { startNodeProxy } from './node-proxy';
import type { BenchResult } from './types';
import { percentile } from './stats';

export const FREE = 'relay-free';
const PAID = 'relay-paid';
const CHUNKS = 20;
/** The first content chunk's text: its first byte is what the clock stops on. */
const FIRST = 'Tok0';
const CONCURRENCY = size(50, 5);
const ROUNDS = size(6, 1);
/** Per round and path: sequential requests, then requests per client at CONCURRENCY. */
const SEQUENTIAL = size(30, 3);
const PER_CLIENT = size(4, 1);
const WARMUP = size(300, 5);

type Path = 'direct' | 'nginx' | 'node' | 'free' | 'priced' | 'free-base' | 'priced-base';
const GATEWAY_PATHS: readonly Path[] = ['free', 'priced', 'free-base', 'priced-base'];

// ---- child processes -------------------------------------------------------------------------------------------

interface Server {
  url: string;
  close(): Promise<void>;
}

async function makeUpstream(): Promise<Server> {
  const { startFakeUpstream } = await import('../unit/server/fake-upstream');
  const steps = Array.from({ length: CHUNKS }, (_, i) => ({ content: i === 0 ? FIRST : ` tok${i}` }));
  const up = await startFakeUpstream({ steps, usage: { prompt_tokens: 12, completion_tokens: CHUNKS } }, { models: [FREE, PAID] });
  // The fake records every request; a long run would keep them all.
  const trim = setInterval(() => (up.requests.length = 0), 200);
  return {
    url: up.url,
    close: () => {
      clearInterval(trim);
      return up.close();
    },
  };
}

interface GatewayServer extends Server {
  credit(sessionId: string): Promise<void>;
  /** BENCH_DB_STATS=1: each kind of statement's count and total time since the last call, as JSON. */
  stats(): string;
}

type Wrappable = { query: (...a: never[]) => Promise<unknown>; transaction: (...a: never[]) => Promise<unknown> };

/** Counts the database's statements per kind (BENCH_DB_STATS=1): how many, and their time (their queue's included). */
function countStatements(db: Wrappable): () => string {
  const counts = new Map<string, { n: number; ms: number }>();
  const wrap = <F extends (...a: never[]) => Promise<unknown>>(fn: F, label: (a: unknown[]) => string): F =>
    ((...args: never[]) => {
      const t0 = performance.now();
      return fn(...args).finally(() => {
        const k = label(args);
        const c = counts.get(k) ?? { n: 0, ms: 0 };
        counts.set(k, { n: c.n + 1, ms: c.ms + performance.now() - t0 });
      });
    }) as F;
  db.query = wrap(db.query.bind(db), (a) => String(a[0]).replace(/\s+/g, ' ').trim().slice(0, 80));
  db.transaction = wrap(db.transaction.bind(db), () => 'BEGIN ... COMMIT (transaction)');
  return () => {
    const out = JSON.stringify(Object.fromEntries([...counts].sort((x, y) => y[1].n - x[1].n).map(([k, c]) => [k, `${c.n} x, ${c.ms.toFixed(0)} ms`])));
    counts.clear();
    return out;
  };
}

async function makeGateway(upstreamUrl: string): Promise<GatewayServer> {
  const { startGateway } = await import('../../src/server/start');
  const gw = await startGateway({
    port: 0,
    memory: true,
    // The database in its own thread, as the deployed gateway runs it (an in-memory one would share the event loop).
    dbThread: process.env.BENCH_DB_THREAD !== '0',
    inheritEnv: false,
    clientDir: null,
    env: {
      PARLEY_UPSTREAM_URL: upstreamUrl,
      PARLEY_UPSTREAM_MODELS: `${FREE},${PAID}`,
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ [PAID]: { input: '0.15', output: '0.6' } }),
      // One client address sends everything: the per-address limit must not be what is measured (its bucket is
      // still taken for every reply, as in production).
      PARLEY_COSTLY_RATE_BURST: '1000000',
      PARLEY_COSTLY_RATE_PER_MIN: '60000000',
    },
    log: () => {},
  });
  const stats = process.env.BENCH_DB_STATS === '1' ? countStatements(gw.db as unknown as Wrappable) : () => '{}';
  return {
    url: gw.url,
    stats,
    credit: async (id) => {
      await gw.ledger.credit(id, { key: `bench:${id}`, usdMicro: 1_000_000_000_000n });
    },
    close: () => gw.close(),
  };
}

/** Child side: prints the server's URL, answers 'cpu' and session ids (credited), exits when stdin ends. */
async function serveChild(which: string): Promise<void> {
  const upstreamUrl = process.env.BENCH_UPSTREAM_URL ?? '';
  const server = which === 'upstream' ? await makeUpstream() : which === 'node' ? await startNodeProxy(upstreamUrl) : await makeGateway(upstreamUrl);
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    if (line === 'cpu') {
      const u = process.cpuUsage();
      process.stdout.write(`${u.user + u.system}\n`);
    } else if (line === 'stats') process.stdout.write(`${'stats' in server ? (server as GatewayServer).stats() : '{}'}\n`);
    else if ('credit' in server) void (server as GatewayServer).credit(line).then(() => process.stdout.write('credited\n'));
  });
  // process.exit, not a return: --cpu-prof writes its profile on a normal exit.
  rl.once('close', () => void server.close().finally(() => process.exit(0)));
}

const entry = process.argv[1];
const role = process.env.PARLEY_BENCH_RELAY;
if (role !== undefined && entry !== undefined && import.meta.url === pathToFileURL(entry).href) await serveChild(role);

/** A server in a child process (or, in a smoke run, in this one), driven by lines. */
export interface Child {
  url: string;
  ask(line: string): Promise<string>;
  stop(): Promise<void>;
}

/** `checkout`: run this file of another checkout (BENCH_RELAY_BASE), from that folder. */
export function startChild(which: 'upstream' | 'gateway' | 'node', env: Record<string, string>, nodeArgs: string[] = [], checkout?: string): Promise<Child> {
  const file = checkout === undefined ? fileURLToPath(import.meta.url) : join(checkout, 'tests/bench/relay.bench.ts');
  const proc = spawn(process.execPath, [...nodeArgs, ...process.execArgv, file], {
    ...(checkout === undefined ? {} : { cwd: checkout }),
    env: { ...process.env, ...env, PARLEY_BENCH_RELAY: which },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout as NonNullable<typeof proc.stdout> });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = (): Promise<string> => new Promise((r) => waiting.push(r));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bench ${which} did not start within 300 s`)), 300_000);
    proc.once('exit', (code) => reject(new Error(`bench ${which} exited with ${code}`)));
    void next().then((line) => {
      clearTimeout(timer);
      resolve({
        url: (JSON.parse(line) as { url: string }).url,
        ask: (l) => {
          const answer = next();
          proc.stdin?.write(`${l}\n`);
          return answer;
        },
        stop: () =>
          new Promise<void>((r) => {
            if (proc.exitCode !== null) return r();
            proc.once('exit', () => r());
            proc.stdin?.end();
            setTimeout(() => {
              proc.kill();
              r();
            }, 10_000).unref();
          }),
      });
    });
  });
}

/** A smoke run starts no child (each would load the gateway's modules again): the same servers, in this process. */
function inProcess(server: Server): Child {
  return {
    url: server.url,
    ask: async (line) => {
      if (line === 'cpu') {
        const u = process.cpuUsage();
        return String(u.user + u.system);
      }
      if (line === 'stats') return (server as GatewayServer).stats();
      await (server as GatewayServer).credit(line);
      return 'credited';
    },
    stop: () => server.close(),
  };
}

// ---- the client ------------------------------------------------------------------------------------------------

interface Target {
  url: URL;
  agent: Agent;
  headers: Record<string, string>;
  body: () => string;
}

/** One request: ms from sending it to the first byte of FIRST in the reply; the rest is read to the end. */
function timeOne(t: Target): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = t.body();
    const t0 = performance.now();
    let at = Number.NaN;
    const req = request(
      { host: t.url.hostname, port: t.url.port, path: t.url.pathname, method: 'POST', agent: t.agent, headers: { ...t.headers, 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          if (Number.isNaN(at)) {
            text += d;
            if (text.includes(FIRST)) at = performance.now() - t0;
          }
        });
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${t.url.href} answered ${res.statusCode}: ${text.slice(0, 300)}`));
          else if (Number.isNaN(at)) reject(new Error(`${t.url.href}: no '${FIRST}' in: ${text.slice(0, 300)}`));
          else resolve(at);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function sequential(t: Target, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) into.push(await timeOne(t));
}

async function concurrent(t: Target, clients: number, perClient: number, into: number[]): Promise<void> {
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < perClient; i++) into.push(await timeOne(t));
    }),
  );
}

export default async function bench(): Promise<BenchResult[]> {
  const nginxBin = ensureNginx('relay');
  if (nginxBin === null) console.log('relay (smoke): nginx is not installed; the nginx path is skipped and ratios are to direct');
  const profDir = process.env.BENCH_CPU_PROF_DIR;
  const upstream = SMOKE ? inProcess(await makeUpstream()) : await startChild('upstream', {});
  let gateway: Child | null = null;
  let base: Child | null = null;
  let nodeProxy: Child | null = null;
  const baseDir = SMOKE ? undefined : process.env.BENCH_RELAY_BASE;
  let nginx: Nginx | null = null;
  const agents: Agent[] = [];
  const t0 = performance.now();
  const since = (): string => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  try {
    gateway = SMOKE
      ? inProcess(await makeGateway(upstream.url))
      : await startChild('gateway', { BENCH_UPSTREAM_URL: upstream.url }, profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
    if (baseDir !== undefined) base = await startChild('gateway', { BENCH_UPSTREAM_URL: upstream.url }, [], baseDir);
    nodeProxy = SMOKE ? inProcess(await startNodeProxy(upstream.url)) : await startChild('node', { BENCH_UPSTREAM_URL: upstream.url });
    if (nginxBin !== null) nginx = await startNginx(nginxBin, [upstream.url]);
    console.log(`relay: upstream, gateway${base ? `, the gateway of ${baseDir}` : ''}${nginx ? ' and nginx' : ''} started (${since()})`);

    /** A session of this gateway, credited: its cookie. */
    const sessionOf = async (gw: Child): Promise<string> => {
      const ls = await fetch(`${gw.url}/auth/local-session`);
      const session = (await ls.json()) as { data: { id: string } };
      if ((await gw.ask(session.data.id)) !== 'credited') throw new Error('the bench session was not credited');
      return (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    };
    const cookie = await sessionOf(gateway);

    const messages = [{ role: 'user', content: 'Count to twenty, one word at a time.' }];
    const agent = (): Agent => {
      const a = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2, maxFreeSockets: CONCURRENCY * 2 });
      agents.push(a);
      return a;
    };
    const directBody = JSON.stringify({ model: FREE, messages, stream: true, stream_options: { include_usage: true } });
    const upstreamHeaders = { 'content-type': 'application/json', accept: 'text/event-stream' };
    const viaGateway = (model: string, gw: Child = gateway as Child, c = cookie): Target => ({
      url: new URL(`${gw.url}/api/stream-gpt`),
      agent: agent(),
      headers: { cookie: c, 'content-type': 'application/json' },
      body: () => JSON.stringify({ model, messages, conversationUUID: 'bench', requestId: randomUUID() }),
    });
    const targets: Partial<Record<Path, Target>> = {
      direct: { url: new URL(`${upstream.url}/chat/completions`), agent: agent(), headers: upstreamHeaders, body: () => directBody },
      free: viaGateway(FREE),
      priced: viaGateway(PAID),
    };
    if (base !== null) {
      const baseCookie = await sessionOf(base);
      targets['free-base'] = viaGateway(FREE, base, baseCookie);
      targets['priced-base'] = viaGateway(PAID, base, baseCookie);
    }
    targets.node = { url: new URL(`${nodeProxy.url}/chat/completions`), agent: agent(), headers: upstreamHeaders, body: () => directBody };
    if (nginx) targets.nginx = { url: new URL(`${nginx.url}${new URL(upstream.url).pathname.replace(/\/$/, '')}/chat/completions`), agent: agent(), headers: upstreamHeaders, body: () => directBody };
    const only = process.env.BENCH_RELAY_PATHS?.split(',').map((p) => p.trim());
    const paths = (['direct', 'nginx', 'node', 'free', 'priced', 'free-base', 'priced-base'] as const).filter((p) => targets[p] !== undefined && (only === undefined || only.includes(p)));

    // Warm-up: JIT, connections, PGlite's prepared statements.
    for (const p of paths) {
      const t = targets[p] as Target;
      await sequential(t, Math.ceil(WARMUP / 10), []);
      await concurrent(t, CONCURRENCY, Math.ceil(WARMUP / CONCURRENCY), []);
    }

    console.log(`relay: warmed up (${since()})`);
    const seq: Record<string, number[]> = {};
    const conc: Record<string, number[]> = {};
    for (const p of paths) {
      seq[p] = [];
      conc[p] = [];
    }
    /** Per relay path: its relay's CPU ms over the rounds, and the replies. */
    const cpu: Record<string, { ms: number; n: number }> = {};
    /** The process that relays a path (its CPU is measured), or null for direct and nginx. */
    const relayOf = (p: Path): Child | null => (p === 'node' ? nodeProxy : !GATEWAY_PATHS.includes(p) ? null : p.endsWith('-base') ? base : gateway);
    const load0 = loadavg()[0] ?? Number.NaN;
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate the order each round: no path always runs right after the same other one.
      const order = paths.map((_, i) => paths[(i + r) % paths.length] as Path);
      for (const p of order) {
        const t = targets[p] as Target;
        const gw = relayOf(p);
        const isGateway = GATEWAY_PATHS.includes(p);
        const c0 = gw ? Number(await gw.ask('cpu')) : 0;
        if (gw && isGateway) await gw.ask('stats');
        await sequential(t, SEQUENTIAL, seq[p] as number[]);
        await concurrent(t, CONCURRENCY, PER_CLIENT, conc[p] as number[]);
        if (gw) {
          const c = (cpu[p] ??= { ms: 0, n: 0 });
          c.ms += (Number(await gw.ask('cpu')) - c0) / 1000;
          c.n += SEQUENTIAL + CONCURRENCY * PER_CLIENT;
          if (process.env.BENCH_DB_STATS === '1' && r === 0 && isGateway) console.log(`relay: ${p}: statements for ${SEQUENTIAL + CONCURRENCY * PER_CLIENT} replies: ${await gw.ask('stats')}`);
        }
      }
    }
    for (const p of paths) {
      (seq[p] as number[]).sort((a, b) => a - b);
      (conc[p] as number[]).sort((a, b) => a - b);
    }
    const q = (set: Record<string, number[]>, p: Path, pct: number): number => percentile(set[p] ?? [], pct);
    const floor: Path = nginx ? 'nginx' : 'direct';
    const load = `load ${load0.toFixed(2)} at the start, ${loadavg()[0]?.toFixed(2)} at the end, ${cpus().length} CPUs`;
    const table = paths
      .map(
        (p) =>
          `${p}: sequential p50 ${q(seq, p, 50).toFixed(3)} p99 ${q(seq, p, 99).toFixed(2)} ms; ${CONCURRENCY} concurrent p50 ${q(conc, p, 50).toFixed(2)} p99 ${q(conc, p, 99).toFixed(2)} ms`,
      )
      .join(' | ');
    console.log(`relay: ${table}`);
    console.log(
      `relay: CPU per reply of the gateway (the node proxy's for node): ${Object.entries(cpu)
        .map(([p, c]) => `${p} ${(c.ms / c.n).toFixed(3)} ms`)
        .join(', ')}; ${ROUNDS} rounds of ${SEQUENTIAL} sequential + ${CONCURRENCY}x${PER_CLIENT} concurrent per path; ${load}`,
    );

    const results: BenchResult[] = [];
    // A profiling run of some paths: the table above is its figure.
    if (only !== undefined) return results;
    const added = (p: Path, limit: number): void => {
      const v = q(seq, p, 50) - q(seq, 'direct', 50);
      results.push({
        name: `relay: ${p} reply, sequential, time to first content byte, p50 added over direct`,
        unit: 'ms',
        value: v,
        baseline: q(seq, 'direct', 50),
        ratio: q(seq, p, 50) / q(seq, 'direct', 50),
        target: `added <= ${limit} ms`,
        pass: v <= limit,
        notes: `${p} ${q(seq, p, 50).toFixed(3)} ms, p99 ${q(seq, p, 99).toFixed(2)} ms (direct ${q(seq, 'direct', 99).toFixed(2)}${nginx ? `, nginx p50 ${q(seq, 'nginx', 50).toFixed(3)}` : ''}); ${load}`,
      });
    };
    const vsFloor = (p: Path, pct: number, limit: number): void => {
      const v = q(conc, p, pct);
      const b = q(conc, floor, pct);
      results.push({
        name: `relay: ${p} reply, ${CONCURRENCY} concurrent, time to first content byte, p${pct} vs ${floor}`,
        unit: 'ms',
        value: v,
        baseline: b,
        ratio: v / b,
        target: `<= ${limit}x ${floor}`,
        pass: v / b <= limit,
        notes: `direct p${pct} ${q(conc, 'direct', pct).toFixed(2)} ms; ${(conc[p] as number[]).length} replies`,
      });
    };
    added('free', 1);
    added('priced', 2);
    vsFloor('free', 50, 1.5);
    vsFloor('free', 99, 1.5);
    vsFloor('priced', 50, 2);
    vsFloor('priced', 99, 2);
    const cpuOf = (p: Path): number => (cpu[p] ? cpu[p].ms / cpu[p].n : Number.NaN);
    results.push({
      name: `relay (informational): a bare Node streaming proxy, ${CONCURRENCY} concurrent, time to first content byte, p50 vs ${floor}`,
      unit: 'ms',
      value: q(conc, 'node', 50),
      baseline: q(conc, floor, 50),
      ratio: q(conc, 'node', 50) / q(conc, floor, 50),
      target: 'informational: the floor of any relay written for Node',
      pass: true,
      notes: `p99 ${q(conc, 'node', 99).toFixed(2)} ms vs ${floor} ${q(conc, floor, 99).toFixed(2)} ms (${(q(conc, 'node', 99) / q(conc, floor, 99)).toFixed(2)}x); sequential p50 ${q(seq, 'node', 50).toFixed(3)} ms`,
    });
    results.push({
      name: 'relay (informational): gateway CPU per free reply vs the bare Node proxy',
      unit: 'ms',
      value: cpuOf('free'),
      baseline: cpuOf('node'),
      ratio: cpuOf('free') / cpuOf('node'),
      target: 'informational',
      pass: true,
      notes: `priced ${cpuOf('priced').toFixed(3)} ms; ${load}`,
    });
    if (nginx) {
      results.push({
        name: `relay (informational): nginx, ${CONCURRENCY} concurrent, p50 vs direct`,
        unit: 'ms',
        value: q(conc, 'nginx', 50),
        baseline: q(conc, 'direct', 50),
        ratio: q(conc, 'nginx', 50) / q(conc, 'direct', 50),
        target: 'informational',
        pass: true,
        notes: `p99 ${q(conc, 'nginx', 99).toFixed(2)} ms vs direct ${q(conc, 'direct', 99).toFixed(2)} ms`,
      });
    }
    return results;
  } finally {
    for (const a of agents) a.destroy();
    await Promise.all([gateway?.stop(), base?.stop(), nodeProxy?.stop(), nginx?.stop(), upstream.stop()]);
  }
}
