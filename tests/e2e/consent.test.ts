/**
 * Analytics consent in the browser (spec 001 sections 4, 6, 7): the banner shows only when consent is pending and a
 * session exists; with consent denied or still pending nothing is recorded at all (no data layer event, no
 * bookkeeping, no request to any analytics endpoint or other host); granted, events reach the first-party data layer.
 */
import type { BrowserContext, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, send, useStack } from './stack';

const getStack = useStack();

const banner = (page: Page) => page.getByRole('region', { name: 'Analytics consent' });
const dataLayer = (page: Page) => page.evaluate(() => (window as unknown as { dataLayer?: unknown[] }).dataLayer ?? null);
const visits = (page: Page) => page.evaluate(() => localStorage.getItem('analytics:visits'));

/** Every request the context makes, pages and workers alike. */
function recordRequests(context: BrowserContext): Request[] {
  const requests: Request[] = [];
  context.on('request', (r) => requests.push(r));
  return requests;
}

/** Uses the features whose first use would be an analytics event, and sends a message. */
async function useTheApp(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Add model' }).click();
  await page.getByRole('button', { name: /^Remove / }).first().click();
  await page.getByRole('button', { name: 'Scratchpad' }).click();
  await page.getByRole('region', { name: 'Scratchpad' }).waitFor();
  await page.getByRole('button', { name: 'Scratchpad' }).click();
  await send(page, 'Hello there');
  await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
  await page.getByRole('link', { name: /^Updates/ }).click();
  await page.getByRole('heading', { name: 'Updates', level: 1 }).waitFor();
}

function assertNothingSent(requests: Request[], origin: string): void {
  const foreign = requests.filter((r) => !r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:'));
  expect(foreign.map((r) => r.url())).toEqual([]);
  expect(requests.filter((r) => /analytics|collect|gtag|gtm|tagmanager|datalayer/i.test(new URL(r.url()).pathname)).map((r) => r.url())).toEqual([]);
}

describe('analytics consent', () => {
  it('no banner without a tracked source (not required), and nothing is recorded', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.waitForTimeout(1500);
    expect(await banner(page).count()).toBe(0);
    expect(await page.evaluate(() => fetch('/api/consent/status').then((r) => r.json()))).toMatchObject({ consentStatus: 'not_required', analyticsConsent: false });
    await useTheApp(page);
    expect(await dataLayer(page)).toBeNull();
  });

  it('consent denied sends nothing: no event and no request', async () => {
    const context = await getStack().newContext();
    const requests = recordRequests(context);
    const page = await openApp(context, '/conversation/new?source=ads');
    await banner(page).waitFor();
    await banner(page).getByRole('button', { name: 'Decline' }).click();
    await banner(page).waitFor({ state: 'detached' });
    expect(await page.evaluate(() => fetch('/api/consent/status').then((r) => r.json()))).toMatchObject({ consentStatus: 'denied', analyticsConsent: false });
    await useTheApp(page);
    await page.reload();
    await page.getByRole('link', { name: /^Updates/ }).waitFor();
    await page.waitForTimeout(1000);
    expect(await banner(page).count()).toBe(0);
    expect(await dataLayer(page)).toBeNull();
    expect(await visits(page)).toBeNull();
    assertNothingSent(requests, getStack().url);
  });

  it('while consent is pending (banner unanswered) nothing is recorded either', async () => {
    const context = await getStack().newContext();
    const requests = recordRequests(context);
    // The source from a cookie this time (spec 001 section 7: track, source, referral_source, utm_source).
    await context.addCookies([{ name: 'utm_source', value: 'mail', url: getStack().url }]);
    const page = await openApp(context);
    await banner(page).waitFor();
    await useTheApp(page);
    expect(await banner(page).count()).toBe(1);
    expect(await dataLayer(page)).toBeNull();
    expect(await visits(page)).toBeNull();
    assertNothingSent(requests, getStack().url);
  });

  it('granted: first uses of features reach the first-party data layer with their value and source; Settings can withdraw it', async () => {
    const context = await getStack().newContext();
    const requests = recordRequests(context);
    const page = await openApp(context, '/conversation/new?source=newsletter');
    await banner(page).getByRole('button', { name: 'Accept analytics' }).click();
    await banner(page).waitFor({ state: 'detached' });
    await useTheApp(page);
    await expect.poll(() => dataLayer(page)).toEqual(
      expect.arrayContaining([
        { event: 'engagement_conversion', type: 'feature_discovery', user_value: 15, source: 'newsletter', metadata: { feature: 'multi_model' } },
        { event: 'engagement_conversion', type: 'feature_discovery', user_value: 15, source: 'newsletter', metadata: { feature: 'scratchpad' } },
      ]),
    );
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Privacy' }).click();
    const toggle = page.getByRole('switch', { name: 'Share usage analytics' });
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await expect.poll(() => page.evaluate(() => fetch('/api/consent/status').then((r) => r.json()))).toMatchObject({ consentStatus: 'denied' });
    const before = ((await dataLayer(page)) ?? []).length;
    await page.getByRole('link', { name: 'Wallet' }).click();
    await page.waitForTimeout(500);
    expect(((await dataLayer(page)) ?? []).length).toBe(before);
    expect(await visits(page)).toBeNull();
    // The data layer is first-party: still no request anywhere else.
    assertNothingSent(requests, getStack().url);
  });
});
