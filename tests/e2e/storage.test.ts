import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, chooseModel, openApp, send, useStack, waitForModels } from './stack';

const getStack = useStack();

/**
 * Serve the engine worker with IndexedDB writes to the event log failing as a full disk does
 * (QuotaExceededError from IDBObjectStore.add/put). Everything else in the worker is the real build.
 */
async function failLogWrites(context: BrowserContext): Promise<() => Promise<void>> {
  const pattern = '**/assets/engine-worker-*.js';
  await context.route(pattern, async (route) => {
    const response = await route.fetch();
    const patch = `
      for (const method of ['add', 'put']) {
        const original = IDBObjectStore.prototype[method];
        IDBObjectStore.prototype[method] = function (...args) {
          if (this.name === 'events') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
          return original.apply(this, args);
        };
      }
    `;
    await route.fulfill({ response, body: patch + (await response.text()) });
  });
  return () => context.unroute(pattern);
}

describe('local storage failure', () => {
  it("shows 'Local storage unavailable' with 'Reload page' when IndexedDB refuses a write, and loses nothing", async () => {
    getStack().upstream.setScript(textReply('Stored after recovery.'));
    // No service worker: it would cache the patched engine worker and serve it again after the reload.
    const context = await getStack().newContext({ withoutServiceWorker: true });
    const restore = await failLogWrites(context);
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Please keep this prompt');

    const notices = page.getByRole('region', { name: 'Notifications' });
    await notices.getByText('Local storage unavailable', { exact: true }).waitFor();
    await notices.getByRole('button', { name: 'Reload page' }).waitFor();
    // Nothing half-written: no message rendered, and the prompt is still in the input.
    expect(await page.locator('article').count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Please keep this prompt');

    // Storage back: 'Reload page' recovers and the same prompt goes through.
    await restore();
    await notices.getByRole('button', { name: 'Reload page' }).click();
    await waitForModels(page);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Please keep this prompt');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    expect(await page.locator('article[data-role="assistant"]').textContent()).toContain('Stored after recovery.');
  });
});
