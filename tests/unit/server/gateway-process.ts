/**
 * One gateway in its own process, for tests that need several (two gateways on one Postgres). Started by
 * `startGatewayProcess` with tsx; prints its URL as one JSON line, and closes when its stdin ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startGateway } from '../../../src/server/start';

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a gateway process on `databaseUrl` with these PARLEY_* settings. */
export function startGatewayProcess(databaseUrl: string, env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, PARLEY_TEST_GATEWAY_CHILD: JSON.stringify({ databaseUrl, env }) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
    const timer = setTimeout(() => reject(new Error('gateway process did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`gateway process exited with ${code}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        child,
        stop: () =>
          new Promise<void>((r) => {
            if (child.exitCode !== null) return r();
            child.once('exit', () => r());
            child.stdin?.end();
            setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
          }),
      });
    });
  });
}

const entry = process.argv[1];
const spec = process.env.PARLEY_TEST_GATEWAY_CHILD;
if (spec !== undefined && entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const { databaseUrl, env } = JSON.parse(spec) as { databaseUrl: string; env: Record<string, string> };
  const gw = await startGateway({ port: 0, databaseUrl, inheritEnv: false, clientDir: null, env, log: (l) => process.stderr.write(`[gw ${process.pid}] ${l}\n`) });
  process.stdout.write(`${JSON.stringify({ url: gw.url })}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => void gw.close().finally(() => process.exit(0)));
}
