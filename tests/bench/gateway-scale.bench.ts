/**
 * More gateway processes, more replies (issue 18): `npm run bench -- gateway-scale`. Two gateway processes on one
 * PostgreSQL behind nginx (round-robin) against one process behind the same kind of nginx, both on that database,
 * same clients; the target is at least 1.6x the replies per second of one process.
 *
 * Processes: this client (node:http, a keep-alive agent), the fake upstream (relay.bench.ts's child, a fixed 20-chunk
 * reply), a throwaway PostgreSQL (tests/unit/server/pg-server.ts), two gateways (tests/unit/server/gateway-process.ts)
 * and two nginx, one in front of the first gateway and one in front of both. The two set-ups alternate in rounds, so
 * machine noise hits both alike; the second gateway idles while the first is measured alone. Each client asks for
 * one free reply after another (a fresh requestId each, read to its end) for the round's time. Also printed: the
 * gateways' CPU per reply (from /proc) and the whole reply's p99.
 *
 * Needs PostgreSQL's server binaries and nginx (scripts/ensure-test-deps.sh installs both); skipped, saying so,
 * without them.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import postgres from 'postgres';
import { startGatewayProcess, type GatewayProcess } from '../unit/server/gateway-process';
import { startTempPostgres, type TempPostgres } from '../unit/server/pg-server';
import { ensureNginx, startNginx, type Nginx } from './nginx';
import { FREE, startChild, type Child } from './relay.bench';
import { BenchSkipped, size } from './smoke';
import { percentile } from './stats';
import type { BenchResult } from './types';

const CLIENTS = size(100, 4);
const SESSIONS = size(10, 2);
const ROUND_MS = size(8000, 600);
const ROUNDS = size(4, 2);
const WARMUP_MS = size(3000, 300);
const TARGET = 1.6;

/** What the rounds of one set-up added up to. */
interface Totals {
  replies: number;
  errors: number;
  /** Whole replies, request sent to last byte, ms. */
  times: number[];
  firstError: string | null;
  /** Wall ms of the rounds; the gateways' CPU seconds; the machine's busy and total CPU time (from /proc/stat). */
  ms: number;
  cpu: number;
  busy: number;
  all: number;
}

const noTotals = (): Totals => ({ replies: 0, errors: 0, times: [], firstError: null, ms: 0, cpu: 0, busy: 0, all: 0 });

/** One reply, read to its end: ms, or throws with what came back. */
function oneReply(base: URL, agent: Agent, cookie: string): Promise<number> {
  const payload = JSON.stringify({ model: FREE, messages: [{ role: 'user', content: 'Count to twenty.' }], conversationUUID: 'bench', requestId: randomUUID() });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      { host: base.hostname, port: base.port, path: '/api/stream-gpt', method: 'POST', agent, headers: { cookie, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          if (res.statusCode !== 200 || !text.includes('<metadata>') || text.includes('"error"')) reject(new Error(`HTTP ${res.statusCode}: ${text.slice(-300)}`));
          else resolve(performance.now() - t0);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** CLIENTS clients, each asking for one reply after another for `ms`; added to `out`. */
async function load(base: URL, agent: Agent, cookies: readonly string[], ms: number, out: Totals): Promise<void> {
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const cookie = cookies[i % cookies.length] as string;
      while (performance.now() < until) {
        try {
          out.times.push(await oneReply(base, agent, cookie));
          out.replies++;
        } catch (e) {
          out.errors++;
          out.firstError ??= e instanceof Error ? e.message : String(e);
        }
      }
    }),
  );
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 a second on Linux)
}

/** The machine's busy and total CPU time so far (all cores), from /proc/stat. */
function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] as string;
  const t = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = t.reduce((a, b) => a + b, 0);
  return { busy: total - (t[3] ?? 0) - (t[4] ?? 0), total }; // idle and iowait are not busy
}

const cpuOf = (pids: readonly (number | undefined)[]): number => pids.reduce<number>((n, p) => n + cpuSeconds(p), 0);

export default async function bench(): Promise<BenchResult[]> {
  if (!existsSync('/proc/self/stat')) throw new BenchSkipped('no /proc here (the gateways CPU is read from it)');
  const nginxBin = ensureNginx('gateway-scale');
  if (nginxBin === null) throw new BenchSkipped('nginx is not installed (scripts/ensure-test-deps.sh installs nginx-light)');
  let pg: TempPostgres;
  try {
    pg = await startTempPostgres();
  } catch (e) {
    throw new BenchSkipped(e instanceof Error ? e.message : String(e));
  }
  let upstream: Child | null = null;
  const gateways: GatewayProcess[] = [];
  const proxies: Nginx[] = [];
  const agents: Agent[] = [];
  try {
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    await admin.unsafe('CREATE DATABASE parley_scale');
    await admin.end();
    const url = new URL(pg.url);
    url.pathname = '/parley_scale';
    upstream = await startChild('upstream', {});
    const env = {
      PARLEY_UPSTREAM_URL: upstream.url,
      PARLEY_UPSTREAM_MODELS: FREE,
      // Every request comes from nginx's address: the per-address limits must not be what is measured.
      PARLEY_COSTLY_RATE_BURST: '1000000',
      PARLEY_COSTLY_RATE_PER_MIN: '60000000',
      PARLEY_SESSION_RATE_BURST: '1000',
    };
    // One after the other: the first migrates the database.
    gateways.push(await startGatewayProcess(url.toString(), env));
    gateways.push(await startGatewayProcess(url.toString(), env));
    const one = await startNginx(nginxBin, [(gateways[0] as GatewayProcess).url]);
    proxies.push(one);
    const two = await startNginx(nginxBin, gateways.map((g) => g.url));
    proxies.push(two);

    const cookies: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const res = await fetch(`${two.url}/auth/local-session`);
      if (!res.ok) throw new Error(`a bench session was refused: HTTP ${res.status}`);
      await res.arrayBuffer();
      cookies.push((res.headers.get('set-cookie') ?? '').split(';')[0] ?? '');
    }
    const agentFor = (): Agent => {
      const a = new Agent({ keepAlive: true, maxSockets: CLIENTS, maxFreeSockets: CLIENTS });
      agents.push(a);
      return a;
    };
    const setups: Record<'one' | 'two', { base: URL; pids: (number | undefined)[]; agent: Agent; total: Totals }> = {
      one: { base: new URL(one.url), pids: [gateways[0]?.child.pid], agent: agentFor(), total: noTotals() },
      two: { base: new URL(two.url), pids: gateways.map((g) => g.child.pid), agent: agentFor(), total: noTotals() },
    };
    for (const s of Object.values(setups)) await load(s.base, s.agent, cookies, WARMUP_MS, noTotals());

    const load0 = loadavg()[0] ?? Number.NaN;
    for (let r = 0; r < ROUNDS; r++) {
      for (const k of r % 2 === 0 ? (['one', 'two'] as const) : (['two', 'one'] as const)) {
        const { base, pids, agent, total: t } = setups[k];
        const cpu0 = cpuOf(pids);
        const m0 = machineCpu();
        const t0 = performance.now();
        await load(base, agent, cookies, ROUND_MS, t);
        t.ms += performance.now() - t0;
        t.cpu += cpuOf(pids) - cpu0;
        const m1 = machineCpu();
        t.busy += m1.busy - m0.busy;
        t.all += m1.total - m0.total;
      }
    }
    const load1 = loadavg()[0] ?? Number.NaN;
    const rate = (k: 'one' | 'two'): number => setups[k].total.replies / (setups[k].total.ms / 1000);
    const describe = (k: 'one' | 'two'): string => {
      const t = setups[k].total;
      t.times.sort((a, b) => a - b);
      return `${k === 'one' ? '1 process' : '2 processes'}: ${rate(k).toFixed(0)} replies/s, whole reply p50 ${percentile(t.times, 50).toFixed(1)} p99 ${percentile(t.times, 99).toFixed(1)} ms, gateway CPU ${((t.cpu * 1000) / Math.max(1, t.replies)).toFixed(2)} ms per reply, the machine's cores ${((100 * t.busy) / Math.max(1, t.all)).toFixed(0)}% busy, ${t.errors} errors${t.firstError ? ` (first: ${t.firstError})` : ''}`;
    };
    const notes = `${describe('one')}; ${describe('two')}; ${CLIENTS} clients, ${SESSIONS} sessions, ${ROUNDS} rounds of ${ROUND_MS / 1000} s each; load ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end, ${cpus().length} CPUs`;
    console.log(`gateway-scale: ${notes}`);
    const errors = setups.one.total.errors + setups.two.total.errors;
    return [
      {
        name: 'gateway scale: two gateway processes on one PostgreSQL behind nginx vs one, free replies per second',
        unit: 'replies/s',
        value: rate('two'),
        baseline: rate('one'),
        ratio: rate('two') / rate('one'),
        target: `ratio >= ${TARGET}, no error`,
        pass: rate('two') / rate('one') >= TARGET && errors === 0,
        notes,
      },
    ];
  } finally {
    for (const a of agents) a.destroy();
    await Promise.all(proxies.map((p) => p.stop()));
    await Promise.all(gateways.map((g) => g.stop()));
    await upstream?.stop();
    await pg.stop();
  }
}
