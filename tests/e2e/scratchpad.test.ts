/**
 * The scratchpad in Chromium (issue 8 item 6): entries added from a message's actions, typed in the panel and
 * taken from a code run's output; edited and deleted; all of it still there after a reload (the log), and the
 * panel's split kept as a preference. At a phone's width the panel takes the page.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();

const REPLY = 'The answer is 42.\n\n```python\nprint(sum(range(10)))\n```';

const panel = (page: Page) => page.getByRole('region', { name: 'Scratchpad' });
const entries = (page: Page) => panel(page).getByRole('list', { name: 'Scratchpad entries' }).getByRole('listitem');

async function entryTexts(page: Page): Promise<string[]> {
  return (await entries(page).locator('.scratchpad-content').allTextContents()).map((t) => t.trim());
}

describe('scratchpad', () => {
  it('adds from a message, a note and a run output; edits and deletes; survives a reload with its split', async () => {
    getStack().upstream.setScript(textReply(REPLY));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize({ width: 1366, height: 850 });

    // No conversation yet: the panel says what it is for.
    await page.getByRole('button', { name: 'Scratchpad', exact: true }).click();
    await expect.poll(() => panel(page).textContent()).toContain('send a message first');
    await panel(page).getByRole('button', { name: 'Close' }).click();

    await chooseModel(page, FREE_MODEL);
    await send(page, 'What is the answer?');
    const reply = page.locator('article[data-role="assistant"][data-status="done"]');
    await reply.waitFor();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/conversation\/.+/);

    // From the message's actions.
    await reply.getByRole('button', { name: 'Message actions' }).click();
    await page.getByRole('menuitem', { name: 'Add to scratchpad' }).click();
    await page.getByRole('status').filter({ hasText: 'Added to scratchpad' }).waitFor();

    // A note typed in the panel.
    await page.getByRole('button', { name: 'Scratchpad', exact: true }).click();
    await panel(page).getByRole('textbox', { name: 'New note' }).fill('Check the sum\nsecond line');
    await panel(page).getByRole('button', { name: 'Add note' }).click();
    await expect.poll(() => entryTexts(page)).toEqual(['Check the sum\nsecond line', REPLY]);

    // A code run's output, from the viewer.
    await reply.getByRole('button', { name: 'Open in viewer' }).click();
    const viewer = page.getByRole('region', { name: 'Code viewer' });
    await expect.poll(() => viewer.getByRole('status').textContent(), { timeout: 60_000 }).toMatch(/^Python ready/);
    await viewer.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => viewer.getByRole('log', { name: 'Output' }).textContent(), { timeout: 30_000 }).toBe('45\n');
    await viewer.getByRole('button', { name: 'Add output to scratchpad' }).click();
    await page.getByRole('status').filter({ hasText: 'Added to scratchpad' }).first().waitFor();
    await viewer.getByRole('textbox', { name: 'Code' }).fill('print(sum(range(11)))');
    await viewer.getByRole('button', { name: 'Add code to scratchpad' }).click();
    await page.getByRole('button', { name: 'Scratchpad', exact: true }).click();
    await expect.poll(() => entryTexts(page)).toEqual(['print(sum(range(11)))', '45', 'Check the sum\nsecond line', REPLY]);
    expect(await entries(page).locator('.scratchpad-type').allTextContents()).toEqual(['Code', 'Output', 'Note', 'Message']);

    // Edit the note, delete the message entry.
    const note = entries(page).nth(2);
    await note.getByRole('button', { name: 'Edit' }).click();
    await note.getByRole('textbox', { name: 'Edit entry' }).fill('Checked: 45');
    await note.getByRole('button', { name: 'Save' }).click();
    await entries(page).nth(3).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => entryTexts(page)).toEqual(['print(sum(range(11)))', '45', 'Checked: 45']);

    // The split: a keyboard step on the divider (panel wider by 5 points of the page), saved as the preference.
    const divider = page.getByRole('separator', { name: 'Resize scratchpad' });
    expect(await divider.getAttribute('aria-valuenow')).toBe('50');
    await divider.focus();
    await divider.press('ArrowLeft');
    await expect.poll(() => divider.getAttribute('aria-valuenow')).toBe('55');
    const widths = await page.evaluate(() => {
      const split = document.querySelector('.tool-split')!.getBoundingClientRect().width;
      return document.querySelector('.tool-split-panel')!.getBoundingClientRect().width / split;
    });
    expect(widths).toBeGreaterThan(0.5);
    expect(widths).toBeLessThan(0.6);

    await page.reload();
    await page.getByRole('button', { name: 'Scratchpad', exact: true }).click();
    await expect.poll(() => entryTexts(page)).toEqual(['print(sum(range(11)))', '45', 'Checked: 45']);
    await expect.poll(() => page.getByRole('separator', { name: 'Resize scratchpad' }).getAttribute('aria-valuenow')).toBe('55');
    // The code viewer keeps its own split (codeViewerHorizontalSplit, 50).
    await page.getByRole('button', { name: 'Open in viewer' }).click();
    expect(await page.getByRole('separator', { name: 'Resize code viewer' }).getAttribute('aria-valuenow')).toBe('50');
    await page.screenshot({ path: 'test-results/scratchpad-desktop.png' });
    await context.close();
  });

  it('at a phone width the panel takes the page, and Close brings the conversation back', async () => {
    getStack().upstream.setScript(textReply(REPLY));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize({ width: 390, height: 844 });
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Phone question');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    // On a phone the page's actions wait behind "More actions" (one header row).
    await page.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('button', { name: 'Scratchpad', exact: true }).click();
    await panel(page).getByRole('textbox', { name: 'New note' }).fill('From my phone');
    await panel(page).getByRole('button', { name: 'Add note' }).click();
    await expect.poll(() => entryTexts(page)).toEqual(['From my phone']);
    const box = await panel(page).boundingBox();
    expect(box!.width).toBeGreaterThan(370);
    expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(false);
    // Nothing sticks out sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: 'test-results/scratchpad-phone.png' });
    await panel(page).getByRole('button', { name: 'Close' }).click();
    expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
    await context.close();
  });
});
