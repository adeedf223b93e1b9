/**
 * Debian's nginx for the benchmarks that hold the gateway to it (relay.bench.ts) or put it in front of several
 * gateways (gateway-scale.bench.ts). Installed with apt-get by a full run when missing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../unit/server/pg-server';
import { SMOKE } from './smoke';

const NGINX_PATHS = ['/usr/sbin/nginx', '/usr/bin/nginx'];
const findNginx = (): string | null => NGINX_PATHS.find((p) => existsSync(p)) ?? null;

/** nginx's binary; installed from Debian's packages in a full run when missing; null in a smoke run without it. */
export function ensureNginx(who: string): string | null {
  const found = findNginx();
  if (found || SMOKE) return found;
  console.log(`${who}: nginx is not installed; installing it (apt-get install nginx-light)`);
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  for (const pkg of ['nginx-light', 'nginx']) {
    try {
      const [cmd, ...args] = [...asRoot, 'apt-get', 'install', '-y', pkg];
      execFileSync(cmd as string, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch {
      continue;
    }
    const now = findNginx();
    if (now) return now;
  }
  throw new Error('nginx is missing and could not be installed (apt-get install nginx-light)');
}

export interface Nginx {
  url: string;
  stop(): Promise<void>;
}

/**
 * nginx as a plain streaming proxy (its own temporary config, one worker, proxy_buffering off, keep-alive on both
 * sides) in front of `servers` (one URL, or several it balances round-robin).
 */
export async function startNginx(bin: string, servers: readonly string[]): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-relay-nginx-'));
  mkdirSync(join(dir, 'logs'));
  const port = await freePort();
  // One worker, as a gateway is one process.
  const conf = `worker_processes 1;
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  upstream relay_upstream { ${servers.map((u) => `server ${new URL(u).host};`).join(' ')} keepalive 256; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://relay_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const proc = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  // Ready when it answers (any status).
  const until = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited with ${proc.exitCode} (config in ${dir})`);
    const ok = await new Promise<boolean>((r) => {
      const req = request(`${url}/`, { method: 'GET' }, (res) => {
        res.resume();
        r(true);
      });
      req.on('error', () => r(false));
      req.end();
    });
    if (ok) break;
    if (Date.now() > until) throw new Error('nginx did not answer within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((r) => {
        const done = (): void => {
          rmSync(dir, { recursive: true, force: true });
          r();
        };
        if (proc.exitCode !== null) return done();
        proc.once('exit', done);
        proc.kill('SIGQUIT'); // graceful stop of the master and its worker
        setTimeout(() => proc.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
