/**
 * Settings and the Wallet as sectioned pages (issue 16): a labelled section list, each section at its own address
 * (a deep link, the back button and a reload keep it), each section's heading shown, and the key controls still
 * working from their sections. On a phone the list is one strip of tabs above the section. And the phone's
 * "More tools" panel and the one-time auto-title question: neither covers the other.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { SETTINGS_SECTIONS, WALLET_SECTIONS } from './screens';
import { FREE_MODEL, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();
const PHONE = { width: 390, height: 844 };

const sectionNav = (page: Page, title: 'Settings' | 'Wallet') => page.getByRole('navigation', { name: `${title} sections` });
const sectionHeading = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true }).getByRole('heading', { name: title, level: 2 });
const path = (page: Page) => new URL(page.url()).pathname;

async function openPage(page: Page, at: string, heading: string): Promise<void> {
  await page.goto(at);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

describe('Settings in sections', () => {
  it('every section from the list: its address, its heading and aria-current; a deep link, a reload and Back keep the section', async () => {
    const page = await (await getStack().newContext()).newPage();
    await openPage(page, '/settings', 'Settings');
    // No section in the address: the first one.
    await sectionHeading(page, 'General').waitFor();
    const nav = sectionNav(page, 'Settings');
    expect(await nav.getByRole('link').allTextContents()).toEqual(SETTINGS_SECTIONS.map((s) => s.title));
    for (const s of SETTINGS_SECTIONS) {
      const link = nav.getByRole('link', { name: s.title, exact: true });
      await link.click();
      await sectionHeading(page, s.title).waitFor();
      expect(path(page)).toBe(`/settings/${s.id}`);
      expect(await link.getAttribute('aria-current')).toBe('page');
      expect(await nav.locator('[aria-current="page"]').count()).toBe(1);
      expect(await page.title()).toBe(`${s.title} · Settings · Parley`);
    }
    // Back goes to the section before; a reload keeps it; a deep link opens it.
    await page.goBack();
    await sectionHeading(page, 'Data').waitFor();
    expect(path(page)).toBe('/settings/data');
    await page.reload();
    await sectionHeading(page, 'Data').waitFor();
    await page.goto('/settings/voice');
    await sectionHeading(page, 'Voice').waitFor();
    await page.getByRole('switch', { name: 'Read replies aloud' }).waitFor();
    // An unknown section shows the first.
    await page.goto('/settings/nothing-here');
    await sectionHeading(page, 'General').waitFor();
  });

  it('the section list is reached with the keyboard; Enter opens a section', async () => {
    const page = await (await getStack().newContext()).newPage();
    await openPage(page, '/settings/general', 'Settings');
    const chat = sectionNav(page, 'Settings').getByRole('link', { name: 'Chat', exact: true });
    await sectionNav(page, 'Settings').getByRole('link', { name: 'General', exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await chat.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await sectionHeading(page, 'Chat').waitFor();
    expect(path(page)).toBe('/settings/chat');
  });

  it('key controls work from their sections: the theme, the default instructions, the log export', async () => {
    const context = await getStack().newContext();
    const page = await context.newPage();
    await openPage(page, '/settings/general', 'Settings');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');

    await sectionNav(page, 'Settings').getByRole('link', { name: 'Chat', exact: true }).click();
    const field = page.getByRole('textbox', { name: 'Default instructions' });
    await field.fill('Answer in one sentence.');
    await field.blur();
    await page.reload();
    await expect.poll(() => page.getByRole('textbox', { name: 'Default instructions' }).inputValue()).toBe('Answer in one sentence.');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');

    await sectionNav(page, 'Settings').getByRole('link', { name: 'Data', exact: true }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('region', { name: 'Data', exact: true }).getByRole('button', { name: 'Export log' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^parley-log-\d{4}-\d{2}-\d{2}\.ndjson$/);
    // The Inspector is under Developer, not on the other sections.
    expect(await page.getByRole('link', { name: 'Open the Inspector' }).count()).toBe(0);
    await sectionNav(page, 'Settings').getByRole('link', { name: 'Developer', exact: true }).click();
    await page.getByRole('link', { name: 'Open the Inspector' }).waitFor();
  });

  it('on a phone: one strip of tabs above the section, the page never wider than the screen', async () => {
    const page = await (await getStack().newContext()).newPage();
    await page.setViewportSize(PHONE);
    await openPage(page, '/settings/chat', 'Settings');
    await sectionHeading(page, 'Chat').waitFor();
    const links = sectionNav(page, 'Settings').getByRole('link');
    const boxes = await links.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().top));
    // One row: every tab at the same height.
    expect(new Set(boxes.map((t) => Math.round(t))).size).toBe(1);
    const navBottom = await sectionNav(page, 'Settings').evaluate((el) => el.getBoundingClientRect().bottom);
    const headingTop = await sectionHeading(page, 'Chat').evaluate((el) => el.getBoundingClientRect().top);
    expect(headingTop).toBeGreaterThanOrEqual(navBottom);
    expect(navBottom).toBeLessThan(160);
    expect(await page.evaluate(() => (document.scrollingElement?.scrollWidth ?? Infinity) <= window.innerWidth)).toBe(true);
    // The current tab scrolls into reach and opens with a tap.
    await links.filter({ hasText: 'Developer' }).click();
    await sectionHeading(page, 'Developer').waitFor();
    // The strip's cut edge fades: on the right where tabs follow.
    await page.goto('/settings/general');
    await sectionHeading(page, 'General').waitFor();
    const strip = sectionNav(page, 'Settings').locator('ul');
    await expect.poll(() => strip.getAttribute('data-cut')).toBe('right');
    // A deep link to the last tab shows that tab whole, clear of the faded edge; now the left edge fades.
    await page.goto('/wallet/recovery');
    await sectionHeading(page, 'Recovery code').waitFor();
    const nav = sectionNav(page, 'Wallet');
    const current = nav.locator('[aria-current="page"]');
    await expect.poll(() => current.evaluate((el) => el.getBoundingClientRect().right)).toBeLessThanOrEqual(PHONE.width);
    expect(await current.evaluate((el) => el.getBoundingClientRect().left)).toBeGreaterThanOrEqual(36);
    expect(await current.textContent()).toBe('Recovery code');
    await expect.poll(() => nav.locator('ul').getAttribute('data-cut')).toBe('left');
  });
});

describe('the Wallet in sections', () => {
  it('every section from the list, a deep link and a reload keep it; ?deposit=open opens the Deposit dialog on the overview', async () => {
    const page = await (await getStack().newContext()).newPage();
    await openPage(page, '/wallet', 'Wallet');
    await sectionHeading(page, 'Overview').waitFor();
    const nav = sectionNav(page, 'Wallet');
    for (const s of WALLET_SECTIONS) {
      await nav.getByRole('link', { name: s.title, exact: true }).click();
      await sectionHeading(page, s.title).waitFor();
      expect(path(page)).toBe(`/wallet/${s.id}`);
    }
    await page.goto('/wallet/history');
    await sectionHeading(page, 'History').waitFor();
    await page.getByText('No deposits yet.', { exact: false }).waitFor();
    await page.reload();
    await sectionHeading(page, 'History').waitFor();
    await page.goto('/wallet/auto-recharge');
    await page.getByRole('button', { name: 'Save auto-recharge' }).waitFor();

    await page.goto('/wallet?deposit=open');
    await page.getByRole('dialog', { name: 'Deposit' }).waitFor();
    await sectionHeading(page, 'Overview').waitFor();
  });
});

describe('the phone composer', () => {
  it('"More tools" open and the auto-title question: neither covers the other', async () => {
    getStack().upstream.setScript(textReply('A first reply.'));
    const page = await openApp(await getStack().newContext());
    await page.setViewportSize(PHONE);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Hello there');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const question = page.getByRole('dialog', { name: 'Automatic titles' });
    await question.waitFor();
    await page.getByRole('button', { name: 'More tools' }).click();
    const panel = page.locator('.more-tools-panel');
    await page.getByRole('button', { name: 'Add model' }).waitFor({ state: 'visible' });
    const overlap = async () => {
      const a = await panel.boundingBox();
      const b = await question.boundingBox();
      if (!a || !b) return true;
      return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    };
    await expect.poll(overlap).toBe(false);
    // Both are usable: the question answers, the panel's button is not covered.
    expect(await page.evaluate(() => {
      const el = document.querySelector('.more-tools-panel button');
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
    })).toBe(true);
    await question.getByRole('button', { name: 'No', exact: true }).click();
    await question.waitFor({ state: 'detached' });
  });
});
