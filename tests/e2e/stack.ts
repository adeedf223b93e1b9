/**
 * The whole product on loopback for browser tests: a fake OpenAI-compatible upstream, the gateway in process
 * (in-memory PGlite, or a folder's PGlite in its own thread as deployed: `onDisk`) serving the built client, and
 * Debian's Chromium. Each test takes a fresh browser context:
 * its own IndexedDB, cookies and so session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase } from '../../src/server/db/open';
import { startGateway, type RunningGateway, type StartGatewayOptions } from '../../src/server/start';
import { startFakeUpstream, textReply, type FakeUpstream } from '../unit/server/fake-upstream';
import { launchChromium } from './browser';

export interface Stack {
  url: string;
  upstream: FakeUpstream;
  gateway: RunningGateway;
  browser: Browser;
  /**
   * A fresh browser context. `withoutServiceWorker`: the app's service worker is not registered, for a test that
   * serves a patched asset with context.route (the worker would keep the patched file in its asset cache).
   */
  newContext(options?: { withoutSharedWorker?: boolean; withoutServiceWorker?: boolean }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Free upstream model (no pricing) and a paid one. */
export const FREE_MODEL = 'fake-model';
export const PAID_MODEL = 'fake-paid';

/** Extra gateway setup for one test file (web tests: a search provider and the scraper's test allowance). */
export interface StackOptions {
  env?: Record<string, string>;
  scrapeTest?: StartGatewayOptions['scrapeTest'];
  /**
   * The database as the deployed gateway has it: PGlite in a temporary folder, in its own thread
   * (src/server/db/pglite-thread.ts). About 8 s more per file than in memory, so only the files on the main paths
   * (chat, money) ask for it.
   */
  onDisk?: boolean;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const upstream = await startFakeUpstream(textReply('Hello from the fake model.'), { models: [FREE_MODEL, PAID_MODEL] });
  // The folder gets its cluster on this thread first, from the test run's template (tests/unit/setup), so that the
  // gateway's database thread opens it instead of running initdb.
  const dataDir = options.onDisk === true ? mkdtempSync(join(tmpdir(), 'parley-e2e-')) : null;
  if (dataDir !== null) await (await openDatabase({ kind: 'pglite', dataDir })).close();
  const gateway = await startGateway({
    port: 0,
    ...(dataDir === null ? { memory: true } : { dataDir }),
    inheritEnv: false,
    clientDir: resolve(process.env.PARLEY_E2E_CLIENT_DIR ?? 'dist/client'),
    log: () => undefined,
    env: {
      PARLEY_UPSTREAM_URL: upstream.url,
      PARLEY_UPSTREAM_NAME: 'fake',
      PARLEY_UPSTREAM_MODELS: `${FREE_MODEL},${PAID_MODEL}`,
      PARLEY_UPSTREAM_PRICING: JSON.stringify({ [PAID_MODEL]: { input: '1', output: '2' } }),
      PARLEY_OFFLINE_TOKEN_DELAY_MS: '1',
      // Every browser context is a new session from 127.0.0.1: room for a whole file of tests (docs/gateway.md).
      PARLEY_SESSION_RATE_BURST: '10000',
      PARLEY_COSTLY_RATE_BURST: '10000',
      PARLEY_FREE_FLUX_PER_ADDRESS: '10000',
      // The deposit tests pay with the built-in test provider, which is never on beside a priced model unless asked.
      PARLEY_TEST_PAYMENTS: 'true',
      // The reading threads start at the first scrape or upload, not with each test's gateway (CPU on a busy machine).
      PARLEY_PARSE_WARM: '0',
      ...options.env,
    },
    ...(options.scrapeTest ? { scrapeTest: options.scrapeTest } : {}),
  });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  return {
    url: gateway.url,
    upstream,
    gateway,
    browser,
    async newContext(options = {}) {
      const context = await browser.newContext({ baseURL: gateway.url, serviceWorkers: options.withoutServiceWorker ? 'block' : 'allow' });
      // A wait with no timeout of its own: a minute, not Playwright's 30 s (a machine under CPU hogs misses that).
      context.setDefaultTimeout(60_000);
      if (options.withoutSharedWorker) {
        await context.addInitScript(() => {
          Reflect.deleteProperty(globalThis, 'SharedWorker');
        });
      }
      contexts.push(context);
      return context;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
      await gateway.close();
      await upstream.close();
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One stack for a test file: started before its tests, closed after. Call at the top level of the file. */
export function useStack(options?: () => StackOptions): () => Stack {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(options?.());
  });
  afterAll(async () => {
    await stack?.close();
  });
  return () => {
    if (!stack) throw new Error('The stack is not started yet');
    return stack;
  };
}

/** Open the app at a path and wait until the engine is connected and the catalogue is shown. */
export async function openApp(context: BrowserContext, path = '/conversation/new'): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  await page.goto(path);
  await waitForModels(page);
  return page;
}

/** The model picker (a button with role combobox, named "Model"), once the catalogue arrived and a model is chosen. */
export function modelPicker(page: Page) {
  return page.getByRole('combobox', { name: 'Model', exact: true });
}

/**
 * The first page after a stack starts compiles the engine worker and asks for the catalogue while the gateway warms
 * up: on a busy 2-core machine (load 20+) that took over the default 30 s, so this one wait is longer.
 */
export async function waitForModels(page: Page): Promise<void> {
  await modelPicker(page).and(page.locator('[data-value]:not([data-value=""]):enabled')).waitFor({ timeout: 90_000 });
}

/** Opens the picker, searches for the model id and chooses it. */
export async function chooseModel(page: Page, model: string): Promise<void> {
  const picker = modelPicker(page);
  if ((await picker.getAttribute('data-value')) === model) return;
  await picker.click();
  await page.getByRole('searchbox', { name: 'Search models' }).fill(model);
  await page.getByRole('option').and(page.locator(`[data-value="${model}"]`)).click();
  await modelPicker(page).and(page.locator(`[data-value="${model}"]`)).waitFor();
}

export async function send(page: Page, text: string): Promise<void> {
  const input = page.getByRole('textbox', { name: 'Message' });
  // Until the page's model is settled the composer ignores Enter ("Loading models…"): wait for its Send.
  await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
  await input.fill(text);
  await input.press('Enter');
}

export const assistant = (page: Page) => page.locator('article[data-role="assistant"]');
export const user = (page: Page) => page.locator('article[data-role="user"]');

/** A slow scripted reply: `words` words, one every `delayMs`. */
export function slowReply(words: number, delayMs: number, prefix = 'word'): ReturnType<typeof textReply> {
  const text = Array.from({ length: words }, (_, i) => `${prefix}${i + 1}`).join(' ');
  return textReply(text, { delayMs, usage: { prompt_tokens: 5, completion_tokens: words } });
}
