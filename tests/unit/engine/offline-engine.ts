/**
 * Engines on fake-indexeddb for tests that need no gateway: the engine's session and catalogue calls get minimal
 * answers, and every engine made is disposed after each test. Call at the top level of a test file.
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { Engine } from '../../../src/worker/engine';

export function useOfflineEngines(): (dbName: string) => Engine {
  const realFetch = globalThis.fetch;
  beforeAll(() => {
    globalThis.fetch = async (input: string | URL | Request) => {
      const path = new URL(String(input), 'http://parley.test').pathname;
      const body = path === '/api/models' ? { models: [], defaultModel: 'fake-model' } : { data: { id: 's', sessionUUID: 'u', usd_balance: '0', nano_balance: '0' } };
      return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    };
  });
  afterAll(() => {
    globalThis.fetch = realFetch;
  });
  const engines: Engine[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.dispose();
  });
  return (dbName) => {
    const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
    engines.push(engine);
    return engine;
  };
}
