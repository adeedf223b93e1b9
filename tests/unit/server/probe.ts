/**
 * Event-loop probes for the gateway tests of issue 5, item 1: while one request is served, another keep-alive
 * connection keeps asking GET /healthz; the slowest probe says how long another user waited on the gateway.
 * (A 2 ms timer's lateness would say more, but on a loaded machine the scheduler alone makes it late by as much.)
 */
import { Agent, request as httpRequest } from 'node:http';

export interface Prober {
  /** One GET /healthz; resolves with its time in ms. */
  probe(): Promise<number>;
  /** Runs `work` and probes until it is done (at least 5 probes); the slowest probe and the work's result. */
  during<T>(work: () => Promise<T>): Promise<{ worst: number; probes: number; result: T }>;
  close(): void;
}

export function prober(baseUrl: string): Prober {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const u = new URL(baseUrl);
  const probe = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = httpRequest({ host: u.hostname, port: u.port, path: '/healthz', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - t0));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    probe,
    async during(work) {
      await probe(); // the probe connection is open before the work starts
      let done = false;
      const running = work().finally(() => {
        done = true;
      });
      const times: number[] = [];
      while (!done || times.length < 5) {
        times.push(await probe());
        await new Promise((r) => setTimeout(r, 2));
      }
      return { worst: Math.max(...times), probes: times.length, result: await running };
    },
    close: () => agent.destroy(),
  };
}
