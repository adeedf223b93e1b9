/**
 * The engine's unit tests run it on fake-indexeddb against the in-process gateway and a fake upstream: this starts
 * both for a test file and points the engine's same-origin fetch at the gateway, with a one-cookie jar as a browser
 * keeps the session cookie.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { Engine } from '../../../src/worker/engine';
import { startFakeUpstream, type FakeScriptInput, type FakeUpstream } from '../server/fake-upstream';

export interface EngineStack {
  upstream: FakeUpstream;
  gateway: RunningGateway;
  /** A new engine on its own database, disposed after each test. */
  engine(dbName: string): Engine;
}

export function useEngineStack(handler: FakeScriptInput, models: readonly string[]): EngineStack {
  const realFetch = globalThis.fetch;
  const engines: Engine[] = [];
  const stack = {
    engine(dbName: string) {
      const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
      engines.push(engine);
      return engine;
    },
  } as EngineStack;
  beforeAll(async () => {
    stack.upstream = await startFakeUpstream(handler);
    stack.gateway = await startGateway({
      port: 0,
      memory: true,
      inheritEnv: false,
      clientDir: null,
      log: () => undefined,
      env: { PARLEY_UPSTREAM_URL: stack.upstream.url, PARLEY_UPSTREAM_MODELS: models.join(','), PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' },
    });
    globalThis.fetch = fetchThrough(stack.gateway.url, realFetch);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.dispose();
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await stack.gateway?.close();
    await stack.upstream?.close();
  });
  return stack;
}

/** A fetch through a one-cookie jar; `forget()` empties the jar (the next call starts another browser's session). */
export type JarFetch = typeof fetch & { forget: () => void };

/**
 * A fetch that sends the engine's relative URLs to `base` and keeps the session cookie as a browser would (a jar of
 * one cookie; a cookie set with Max-Age=0 empties it). Every engine test points the global fetch at its gateway
 * through this, directly or inside a wrapper of its own that counts, holds or answers some paths.
 */
export function fetchThrough(base: string, realFetch: typeof fetch): JarFetch {
  let cookie = '';
  const through = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    if (cookie) headers.set('cookie', cookie);
    const res = await realFetch(new URL(String(input), base), { ...init, headers });
    const set = res.headers.get('set-cookie');
    if (set) cookie = /Max-Age=0/i.test(set) ? '' : (set.split(';')[0] ?? '');
    return res;
  };
  return Object.assign(through, { forget: () => void (cookie = '') });
}

/**
 * The first value of a live query that passes `test`, or a rejection after `ms`: generous, since a loaded 2-core
 * machine can be slow; a wait that is met clears its timer.
 */
export function until<T>(source: Observable<unknown>, test: (v: T) => boolean, ms = 90_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    firstValueFrom((source as Observable<T>).pipe(filter((v) => v !== null && test(v)))),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for a value`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
