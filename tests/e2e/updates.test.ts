/** The updates feed in the browser: the "Updates" link names the unread count; read one, then all; every tab follows. */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UPDATE_ENTRIES } from '../../src/updates/feed';
import { openApp, useStack } from './stack';

const getStack = useStack();
const updatesLink = (page: Page) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: /^Updates/ });

describe('updates feed', () => {
  it('unread count in the link, read one at a time or all at once, kept per id across tabs and reloads', async () => {
    const total = UPDATE_ENTRIES.length;
    const context = await getStack().newContext();
    const page = await openApp(context);
    const other = await openApp(context);
    await expect.poll(() => updatesLink(page).textContent()).toBe(`Updates${total} unread`);

    await updatesLink(page).click();
    await page.getByRole('heading', { name: 'Updates', level: 1 }).waitFor();
    const first = UPDATE_ENTRIES[0]!;
    await page.getByRole('heading', { name: first.title, level: 2 }).waitFor();
    expect(await page.getByRole("button", { name: /^Mark “.*” as read$/ }).count()).toBe(total);
    await page.getByRole('button', { name: `Mark “${first.title}” as read` }).click();
    await expect.poll(() => updatesLink(page).textContent()).toBe(`Updates${total - 1} unread`);
    // The other tab's link follows (engine data, one engine for all tabs).
    await expect.poll(() => updatesLink(other).textContent()).toBe(`Updates${total - 1} unread`);
    expect(await page.getByRole("button", { name: /^Mark “.*” as read$/ }).count()).toBe(total - 1);

    await page.reload();
    await expect.poll(() => updatesLink(page).textContent()).toBe(`Updates${total - 1} unread`);
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await expect.poll(() => updatesLink(page).textContent()).toBe('Updates');
    await expect.poll(() => updatesLink(other).textContent()).toBe('Updates');
    expect(await page.getByText('All read').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Mark all as read' }).isDisabled()).toBe(true);
  });

  it("an entry's links open the app's pages in this tab: /media in its mode, /balance the Wallet, Settings with the 18+ switch", async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await updatesLink(page).click();
    const entry = (title: string) => page.getByRole('article', { name: title });
    const images = UPDATE_ENTRIES.find((e) => e.text.includes('(/media?mode=image)'))!;
    await entry(images.title).getByRole('link', { name: 'Try it' }).click();
    await page.waitForURL((u) => u.pathname === '/conversation/new' && u.searchParams.get('mode') === 'image');
    await expect.poll(() => page.getByRole('radio', { name: 'Image' }).isChecked()).toBe(true);
    expect(context.pages().length).toBe(1);

    await page.goBack();
    const wallet = UPDATE_ENTRIES.find((e) => e.text.includes('(/balance)'))!;
    await entry(wallet.title).getByRole('link', { name: 'Wallet' }).first().click();
    await page.getByRole('heading', { name: 'Wallet', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/balance');

    await page.goto('/updates');
    const explicit = UPDATE_ENTRIES.find((e) => e.text.includes('Show explicit content (18+)'))!;
    await entry(explicit.title).getByRole('link', { name: 'Settings' }).click();
    const toggle = page.getByRole('switch', { name: 'Show explicit content (18+)' });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
  });
});
