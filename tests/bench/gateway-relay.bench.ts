/**
 * Relay overhead of the gateway: time to first token of a streamed chat reply through the gateway (a real
 * @hono/node-server on loopback) minus the time to first token straight from the same fake OpenAI upstream.
 * Both paths use the same client (fetch) and are measured interleaved in one run, after a warm-up.
 * Targets: p50 added < 1 ms, p99 added < 5 ms.
 *
 * The gateway and the fake upstream run in a child process (this same file, started with PARLEY_BENCH_CHILD=1),
 * as a browser and a gateway would be separate processes: the client's socket reads must not wait for the
 * gateway's own work on a shared event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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
const MODEL = 'bench-model';

/** Reads until `done(textSoFar)` holds; returns the ms from t0 to that moment, then drains the rest. */
async function timeToFirst(res: Response, t0: number, done: (text: string) => boolean): Promise<number> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let at = Number.NaN;
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    text += decoder.decode(r.value, { stream: true });
    if (Number.isNaN(at) && done(text)) at = performance.now() - t0;
  }
  if (Number.isNaN(at)) throw new Error(`first token never seen in: ${text.slice(0, 200)}`);
  return at;
}

interface ChildUrls {
  gateway: string;
  upstream: string;
}

/** Child mode: start the fake upstream and the gateway, print their URLs as one JSON line, run until stdin ends. */
async function serveChild(): Promise<void> {
  const up = await startFakeUpstream({ steps: [{ content: 'Hello' }, { content: ' world' }], usage: { prompt_tokens: 3, completion_tokens: 2 } }, { models: [MODEL] });
  const gw = await startGateway({
    port: 0,
    memory: true,
    // The database in its own thread, as the deployed gateway runs it (an in-memory one would share the event loop).
    dbThread: process.env.BENCH_DB_THREAD !== '0',
    inheritEnv: false,
    clientDir: null,
    // One client sends every reply: the per-address limit on costly routes is not what is measured here.
    env: { PARLEY_UPSTREAM_URL: up.url, PARLEY_UPSTREAM_MODELS: MODEL, PARLEY_COSTLY_RATE_BURST: '1000000', PARLEY_COSTLY_RATE_PER_MIN: '60000000' },
    log: () => {},
  });
  const urls: ChildUrls = { gateway: gw.url, upstream: up.url };
  process.stdout.write(`${JSON.stringify(urls)}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => {
    void Promise.all([gw.close(), up.close()]).finally(() => process.exit(0));
  });
}

function startChild(): Promise<{ child: ChildProcess; urls: ChildUrls }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, PARLEY_BENCH_CHILD: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
    const timer = setTimeout(() => reject(new Error('bench child did not start within 300 s')), 300_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve({ child, urls: JSON.parse(line) as ChildUrls });
    });
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
  });
}

const entry = process.argv[1];
if (process.env.PARLEY_BENCH_CHILD === '1' && entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  await serveChild();
}

export default async function bench(): Promise<BenchResult[]> {
  const { child, urls } = await startChild();
  const gw = { url: urls.gateway };
  const up = { url: urls.upstream };
  try {
    const ls = await fetch(`${gw.url}/auth/local-session`);
    const cookie = (ls.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    await ls.arrayBuffer();
    const messages = [{ role: 'user', content: 'Say hello.' }];
    const gatewayBody = JSON.stringify({ model: MODEL, messages, conversationUUID: 'bench' });
    const directBody = JSON.stringify({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } });

    const viaGateway = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${gw.url}/api/stream-gpt`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: gatewayBody,
      });
      if (res.status !== 200) throw new Error(`gateway answered ${res.status}: ${await res.text()}`);
      return timeToFirst(res, t0, (t) => t.includes('Hello'));
    };
    const direct = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${up.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: directBody,
      });
      if (res.status !== 200) throw new Error(`upstream answered ${res.status}`);
      return timeToFirst(res, t0, (t) => t.includes('"content":"Hello"'));
    };

    for (let i = 0; i < WARMUP; i++) {
      await direct();
      await viaGateway();
    }
    const g: number[] = [];
    const d: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      // Alternate the order so neither path always runs on a just-warmed connection.
      if (i % 2 === 0) {
        d.push(await direct());
        g.push(await viaGateway());
      } else {
        g.push(await viaGateway());
        d.push(await direct());
      }
    }
    g.sort((a, b) => a - b);
    d.sort((a, b) => a - b);
    const p50g = percentile(g, 50);
    const p50d = percentile(d, 50);
    const p99g = percentile(g, 99);
    const p99d = percentile(d, 99);
    const added50 = p50g - p50d;
    const added99 = p99g - p99d;
    const load = `load ${loadavg()[0]?.toFixed(2)} on ${cpus().length} CPUs`;
    const notes = (gp: number, dp: number): string =>
      `gateway ${gp.toFixed(3)} ms vs direct ${dp.toFixed(3)} ms; ${ITERATIONS} iterations after ${WARMUP} warm-up; ${load}`;
    return [
      {
        name: 'gateway relay: time to first token, p50 added',
        unit: 'ms',
        value: added50,
        baseline: null,
        ratio: null,
        target: 'p50 added < 1 ms',
        pass: added50 < 1,
        notes: notes(p50g, p50d),
      },
      {
        name: 'gateway relay: time to first token, p99 added',
        unit: 'ms',
        value: added99,
        baseline: null,
        ratio: null,
        target: 'p99 added < 5 ms',
        pass: added99 < 5,
        notes: notes(p99g, p99d),
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
