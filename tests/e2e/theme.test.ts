/**
 * The stored theme is applied before the first paint (issue 16): the preference is the engine's, the view mirrors
 * it to localStorage, and public/theme.js (loaded by index.html before the app's script) applies it at once. With
 * the engine held back, a light-theme user's page is light from its first frame, not dark until the engine answers.
 */
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { useStack } from './stack';

const getStack = useStack();
const LIGHT_BACKGROUND = 'rgb(247, 248, 250)';

describe('theme before first paint', () => {
  it('with the engine held back, a reload is light from the first frame (computed background and screenshot)', async () => {
    // No service worker: it would serve the engine's script from its cache, past the route that holds it back.
    const context = await getStack().newContext({ withoutServiceWorker: true });
    const settings = await context.newPage();
    await settings.goto('/settings');
    const theme = settings.getByRole('combobox', { name: 'Theme' });
    await theme.waitFor({ timeout: 90_000 });
    await theme.selectOption('light');
    await expect.poll(() => settings.evaluate(() => localStorage.getItem('parley.theme'))).toBe('light');
    await settings.close();

    // Hold the engine worker's script: no preference can reach the page until it is released.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    await context.route(/\/assets\/engine-worker-[\w-]+\.js$/, async (route) => {
      asked = true;
      await held;
      await route.continue();
    });
    const page = await context.newPage();
    await page.goto('/conversation/new', { waitUntil: 'commit' });
    await page.waitForFunction(() => document.readyState !== 'loading');
    await page.locator('.app').waitFor();
    await expect.poll(() => asked).toBe(true);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(LIGHT_BACKGROUND);
    const shot = PNG.sync.read(await page.screenshot());
    // The bottom-right corner is the page's own background (nothing is drawn there on the new conversation page).
    const at = (shot.width * (shot.height - 2) + (shot.width - 2)) * 4;
    const [r, g, b] = [shot.data[at] ?? 0, shot.data[at + 1] ?? 0, shot.data[at + 2] ?? 0];
    expect(Math.min(r, g, b)).toBeGreaterThan(200);

    release();
    await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 90_000 });
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await context.close();
  });
});
