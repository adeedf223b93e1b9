/**
 * The leader tab's connection to its own engine worker (src/worker/tab/connection.ts). The engine answers a
 * handshake only once its database is open; on a slow or busy device that can take longer than the handshake's
 * timeout (2.5 s). The leader must keep asking rather than give up: a leader that gave up after one timeout stayed
 * at "Loading…" for good, and so did every tab waiting on it (seen in the browser tests at load 25).
 */
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGINE_PROTOCOL_VERSION } from '../../../src/protocol/engine';
import { EngineConnection } from '../../../src/worker/tab/connection';
import type { TabToEngineWorker } from '../../../src/worker/tab/messages';

/** A stand-in for the engine worker: exposes a handshake on every port it is handed, answered once it "started". */
function slowEngineWorker(startMs: number): { worker: Worker; handshakes: () => number } {
  let asked = 0;
  const started = new Promise<void>((r) => setTimeout(r, startMs));
  const worker = {
    postMessage(message: TabToEngineWorker) {
      if (message.type !== 'connect') return;
      Comlink.expose(
        {
          async handshake(version: number) {
            asked++;
            await started;
            return { ok: true, engineId: 'engine-1', protocolVersion: version };
          },
          async subscribe() {
            return Comlink.proxy(() => undefined);
          },
          async close() {},
        },
        message.port as unknown as Comlink.Endpoint,
      );
    },
  } as unknown as Worker;
  return { worker, handshakes: () => asked };
}

const opened: EngineConnection[] = [];
afterEach(() => {
  vi.unstubAllGlobals();
  opened.length = 0;
});

describe('the leader tab and its own engine', () => {
  it('keeps asking a slow-starting engine until it answers, then connects', async () => {
    // This tab wins the leader lock at once; no SharedWorker here, so the BroadcastChannel relay is used.
    vi.stubGlobal('navigator', { locks: { request: (_name: string, run: () => Promise<void>) => run() } });
    vi.stubGlobal('addEventListener', () => undefined);
    const engine = slowEngineWorker(4_000);
    const connection = new EngineConnection({ forceRelay: true, createEngineWorker: () => engine.worker, createBroker: () => { throw new Error('no broker'); } });
    opened.push(connection);
    const states: string[] = [];
    connection.onState((s) => states.push(s));
    connection.start();
    const version = await connection.call((api) => api.handshake(ENGINE_PROTOCOL_VERSION));
    expect(version).toEqual({ ok: true, engineId: 'engine-1', protocolVersion: ENGINE_PROTOCOL_VERSION });
    expect(connection.leader).toBe(true);
    expect(connection.engineId).toBe('engine-1');
    expect(states.at(-1)).toBe('connected');
    // The first handshake timed out (2.5 s < 4 s) and was asked again on a fresh port.
    expect(engine.handshakes()).toBeGreaterThanOrEqual(2);
  });
});
