/**
 * The installable app (issue 10 item 8): the manifest and its icons, a service worker registered from the app's
 * origin that serves the app shell offline (the engine and the log work without the network), the CSP intact on
 * the cached page, and the install banner that installBannerHidden hides.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseModel, FREE_MODEL, openApp, send, useStack } from './stack';

const getStack = useStack();

/** Waits until the service worker controls the page (it claims open pages when it activates). */
async function controlled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (navigator.serviceWorker.controller) return;
    await new Promise<void>((resolve) => navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true }));
  });
}

describe('installable app', () => {
  it('serves a manifest with icons we draw', async () => {
    const base = getStack().url;
    const res = await fetch(`${base}/manifest.webmanifest`);
    expect(res.headers.get('content-type')).toContain('application/manifest+json');
    const manifest = (await res.json()) as { name: string; start_url: string; display: string; icons: { src: string; sizes: string; type: string; purpose: string }[] };
    expect(manifest).toMatchObject({ name: 'Parley', start_url: '/conversation/new', display: 'standalone' });
    expect(manifest.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    expect(manifest.icons.some((i) => i.purpose === 'maskable')).toBe(true);
    for (const icon of manifest.icons) {
      const file = await fetch(`${base}${icon.src}`);
      expect(file.status, icon.src).toBe(200);
      expect(file.headers.get('content-type')).toBe(icon.type);
      if (icon.type === 'image/png') {
        const bytes = new Uint8Array(await file.arrayBuffer());
        // PNG signature, then the IHDR width and height.
        expect(Array.from(bytes.slice(1, 4))).toEqual([0x50, 0x4e, 0x47]);
        const view = new DataView(bytes.buffer);
        expect(`${view.getUint32(16)}x${view.getUint32(20)}`).toBe(icon.sizes);
      }
    }
  });

  it('draws the interface in its own font, served by the app itself (no font from another host)', async () => {
    const context = await getStack().newContext();
    const fonts: string[] = [];
    context.on('request', (r) => {
      if (r.resourceType() === 'font') fonts.push(r.url());
    });
    const page = await openApp(context);
    await page.evaluate(() => document.fonts.ready);
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toMatch(/^"Inter Variable"/);
    expect(await page.evaluate(() => document.fonts.check('15px "Inter Variable"', 'Parley'))).toBe(true);
    expect(await page.evaluate(() => [...document.fonts].some((f) => f.family === 'Inter Variable' && f.status === 'loaded'))).toBe(true);
    expect(fonts.some((u) => /\/assets\/inter-latin-wght-normal-[\w-]+\.woff2$/.test(u))).toBe(true);
    for (const u of fonts) expect(new URL(u).origin, u).toBe(new URL(getStack().url).origin);
    // Kerning and contextual alternates stay off wherever text shows, the message box included: with them, one long
    // word of a reply took Chromium 9-25 s to lay out in this font (styles.css).
    const features = await page.evaluate(() =>
      [document.body, document.querySelector('textarea')].map((el) => {
        const style = getComputedStyle(el ?? document.body);
        return `${style.fontKerning} ${style.fontVariantLigatures}`;
      }),
    );
    expect(features).toEqual(['none none', 'none none']);
  });

  it('loaded once, then offline: a reload shows the app shell, the conversations and the offline notice', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Kept for offline');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await controlled(page);
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${getStack().url}/sw.js`);

    await context.setOffline(true);
    const response = await page.reload();
    expect(response?.fromServiceWorker()).toBe(true);
    // The CSP travels with the cached page.
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Kept for offline' }).waitFor();
    await page.getByRole('region', { name: 'Notifications' }).getByRole('alert').filter({ hasText: 'Internet connection lost' }).waitFor();
    // The conversation itself opens from the local database.
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Kept for offline' }).click();
    await page.locator('article[data-role="assistant"]').filter({ hasText: 'Hello from the fake model.' }).waitFor();
    await context.setOffline(false);
  });

  it('the install banner offers the browser prompt, and "Don\'t show again" hides it for good', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    const offer = () =>
      page.evaluate(() => {
        const e = new Event('beforeinstallprompt', { cancelable: true }) as Event & { prompt(): Promise<void>; userChoice: Promise<{ outcome: string }> };
        (window as unknown as { prompted: number }).prompted = 0;
        e.prompt = async () => void ((window as unknown as { prompted: number }).prompted += 1);
        e.userChoice = Promise.resolve({ outcome: 'accepted' });
        window.dispatchEvent(e);
      });
    const banner = page.getByRole('region', { name: 'Install Parley' });
    await offer();
    await banner.getByRole('button', { name: 'Install' }).click();
    await banner.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (window as unknown as { prompted: number }).prompted)).toBe(1);

    await offer();
    await banner.getByRole('button', { name: "Don't show again" }).click();
    await banner.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('link', { name: 'Settings' }).waitFor();
    await offer();
    await page.waitForTimeout(500);
    expect(await banner.count()).toBe(0);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Privacy' }).click();
    await expect.poll(() => page.getByRole('switch', { name: 'Hide install banner' }).isChecked()).toBe(true);
  });
});
