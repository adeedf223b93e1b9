/**
 * For engine tests: a gateway on a free port, and the global fetch pointed at it with a cookie jar (the engine's
 * relative URLs resolve against it), plus engines on fake-indexeddb that are disposed after each test.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ScrapeTestAllowance } from '../../../src/server/net/ssrf';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { Engine } from '../../../src/worker/engine';
import { fetchThrough } from './harness';

export function useTestGateway(
  env: Record<string, string> = {},
  /** The scraper's test-only allowance, asked for when the gateway starts (after earlier beforeAll hooks). */
  scrapeTest?: () => ScrapeTestAllowance,
): { gateway: () => RunningGateway; newEngine: (dbName?: string) => Engine; forget: (e: Engine) => void } {
  let gateway: RunningGateway | undefined;
  const realFetch = globalThis.fetch;
  beforeAll(async () => {
    gateway = await startGateway({ port: 0, memory: true, inheritEnv: false, clientDir: null, log: () => undefined, env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', PARLEY_PARSE_WARM: '0', ...env }, scrapeTest: scrapeTest?.() });
    globalThis.fetch = fetchThrough(gateway.url, realFetch);
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await gateway?.close();
  });
  const engines: Engine[] = [];
  let counter = 0;
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.dispose();
  });
  return {
    gateway: () => gateway as RunningGateway,
    newEngine(dbName = `engine-test-${Date.now()}-${++counter}`) {
      const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
      engines.push(engine);
      return engine;
    },
    forget(e: Engine) {
      const i = engines.indexOf(e);
      if (i >= 0) engines.splice(i, 1);
    },
  };
}
