import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();

const list = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const names = (page: Page) => list(page).getByRole('link').allTextContents();

/** Starts a new conversation with `prompt` (the fake model answers `reply`) and waits for the reply. */
async function converse(page: Page, prompt: string, reply: string): Promise<string> {
  getStack().upstream.setScript(textReply(reply));
  await page.getByRole('link', { name: '+ New chat' }).click();
  await chooseModel(page, FREE_MODEL);
  await send(page, prompt);
  await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
  await expect.poll(() => new URL(page.url()).pathname).not.toBe('/conversation/new');
  return new URL(page.url()).pathname.replace('/conversation/', '');
}

async function act(page: Page, name: string, action: 'Rename' | 'Pin' | 'Unpin' | 'Delete'): Promise<void> {
  const item = list(page).getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
  await item.getByRole('button', { name: 'Conversation actions' }).click();
  await page.getByRole('menuitem', { name: action, exact: true }).click();
}

describe.each([
  { mode: 'SharedWorker broker', withoutSharedWorker: false },
  { mode: 'BroadcastChannel relay (SharedWorker removed)', withoutSharedWorker: true },
])('conversation management: $mode', ({ withoutSharedWorker }) => {
  it('renames, pins, deletes with Undo, and every tab sees it', async () => {
    const context = await getStack().newContext({ withoutSharedWorker });
    const page = await openApp(context);
    const first = await converse(page, 'Tell me about owls', 'Owls hunt at night.');
    await converse(page, 'Tell me about bees', 'Bees make honey.');
    await expect.poll(() => names(page)).toEqual(['Tell me about bees', 'Tell me about owls']);
    const other = await openApp(context, `/conversation/${first}`);

    await act(page, 'Tell me about owls', 'Rename');
    const field = page.getByRole('textbox', { name: 'Conversation name' });
    await field.fill('Night birds');
    await field.press('Enter');
    await expect.poll(() => names(page)).toEqual(['Tell me about bees', 'Night birds']);
    await expect.poll(() => names(other)).toEqual(['Tell me about bees', 'Night birds']);

    await act(page, 'Night birds', 'Pin');
    await expect.poll(() => names(page)).toEqual(['Night birds', 'Tell me about bees']);
    const pinnedItem = list(page).getByRole('listitem').first();
    await pinnedItem.getByRole('button', { name: 'Conversation actions' }).click();
    expect(await page.getByRole('menuitem').allTextContents()).toEqual(['Rename', 'Unpin', 'Move to folder', 'Delete']);
    await page.keyboard.press('Escape');

    // Delete the open conversation: it leaves the list (in both tabs) and the page; Undo brings it back whole.
    await page.getByRole('link', { name: 'Night birds' }).click();
    await act(page, 'Night birds', 'Delete');
    await expect.poll(() => names(page)).toEqual(['Tell me about bees']);
    await expect.poll(() => names(other)).toEqual(['Tell me about bees']);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/conversation/new');
    const notice = page.getByRole('region', { name: 'Notifications' }).getByRole('status').filter({ hasText: 'Conversation deleted' });
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => names(page)).toEqual(['Night birds', 'Tell me about bees']);
    await expect.poll(() => notice.count()).toBe(0);
    await page.getByRole('link', { name: 'Night birds' }).click();
    await expect.poll(() => page.locator('article[data-role="assistant"]').first().textContent()).toContain('Owls hunt at night.');
  });
});

describe('search and instructions in Chromium', () => {
  it('Ctrl+K focuses the search; results come as you type, by message text and by name', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    const zebra = await converse(page, 'Stripes question', 'Zebras have stripes for cooling.');
    await converse(page, 'Mountain facts', 'Everest is the tallest mountain.');
    await page.getByRole('textbox', { name: 'Message' }).click();
    await page.keyboard.press('Control+k');
    const box = page.getByRole('searchbox', { name: 'Search conversations' });
    await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
    await box.pressSequentially('zeb');
    const results = page.getByRole('region', { name: 'Search results' });
    await expect.poll(() => results.getByRole('link').allTextContents()).toEqual([expect.stringContaining('Stripes question')]);
    expect(await results.getByRole('link').textContent()).toContain('Zebras have stripes');
    await box.fill('mountain');
    await expect.poll(() => results.getByRole('link').allTextContents()).toEqual([expect.stringContaining('Mountain facts')]);
    await box.fill('nothing like this');
    await expect.poll(() => results.textContent()).toContain('No conversations match');
    await box.fill('stripes');
    await results.getByRole('link').first().click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/conversation/${zebra}`);
    // Choosing a result ends the search: the list is back.
    expect(await box.inputValue()).toBe('');
    await expect.poll(() => names(page)).toHaveLength(2);
  });

  it('sets a conversation system prompt from a preset; it reaches the model with the placeholders filled', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await converse(page, 'Teach me fractions', 'Sure.');
    await page.getByRole('button', { name: 'Instructions' }).click();
    const dialog = page.getByRole('dialog', { name: 'System prompt' });
    await dialog.waitFor();
    // The editor loads when first needed: its placeholder comes first.
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Preset' }).locator('option').allTextContents()).toEqual(['Standard', 'Study Mode']);
    await dialog.getByRole('combobox', { name: 'Preset' }).selectOption({ label: 'Study Mode' });
    expect(await dialog.getByRole('textbox', { name: 'Instructions for this conversation' }).inputValue()).toContain('guiding questions');
    // Own words, saved as a preset.
    const text = dialog.getByRole('textbox', { name: 'Instructions for this conversation' });
    await text.fill('You are {{modelName}}. Answer in rhyme.');
    await dialog.getByRole('textbox', { name: 'Preset name' }).fill('Rhymes');
    await dialog.getByRole('button', { name: 'Save as preset' }).click();
    await expect.poll(() => dialog.getByRole('combobox', { name: 'Preset' }).locator('option').allTextContents()).toEqual(['Rhymes', 'Standard', 'Study Mode']);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);

    getStack().upstream.setScript(textReply('In rhyme I reply.'));
    const before = getStack().upstream.requests.length;
    await send(page, 'What is a half?');
    await expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count()).toBe(2);
    const sent = getStack().upstream.requests.slice(before).find((r) => r.body !== null)?.body;
    expect(sent?.messages?.[0]).toEqual({ role: 'system', content: 'You are fake-model. Answer in rhyme.' });
  });

  it('asks once about automatic titles; Yes titles the open conversation', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    const slug = await converse(page, 'Could you explain how volcanoes erupt under pressure', 'Magma rises.');
    const question = page.getByRole('dialog', { name: 'Automatic titles' });
    await question.getByRole('button', { name: 'Yes' }).click();
    await expect.poll(() => question.count()).toBe(0);
    await expect.poll(() => list(page).getByRole('link', { name: 'Volcanoes erupt under pressure' }).getAttribute('href')).toBe(`/conversation/${slug}`);
    // Later conversations are titled after their first reply, and the question does not come back.
    await converse(page, 'Please describe the migration of monarch butterflies', 'They fly south.');
    await expect.poll(() => names(page)).toContain('Describe migration monarch butterflies');
    expect(await question.count()).toBe(0);
  });
});

describe('date groups', () => {
  it('groups the list under Today, then by age as the days pass; pinned ones stay on top under Pinned', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await converse(page, 'Tell me about otters', 'Otters hold hands.');
    await converse(page, 'Tell me about crows', 'Crows remember faces.');
    const headings = () => list(page).getByRole('heading').allTextContents();
    await expect.poll(headings).toEqual(['Today']);
    await act(page, 'Tell me about otters', 'Pin');
    await expect.poll(headings).toEqual(['Pinned', 'Today']);
    // Each group is a group named by its heading.
    expect(await list(page).getByRole('group', { name: 'Today' }).getByRole('link').allTextContents()).toEqual(['Tell me about crows']);

    // Three days later, then 40 (a new tab's clock; time flows on from there): the same conversations, older groups.
    const now = Date.now();
    const later = async (days: number) => {
      const tab = await context.newPage();
      await tab.clock.install({ time: now + days * 24 * 3_600_000 });
      await tab.clock.resume();
      await tab.goto('/conversation/new');
      return tab;
    };
    const tab3 = await later(3);
    await expect.poll(() => list(tab3).getByRole('heading').allTextContents(), { timeout: 30_000 }).toEqual(['Pinned', 'Previous 7 days']);
    await tab3.close();
    const tab40 = await later(40);
    const month = new Date(now).toLocaleString('en-US', { month: 'long' });
    const sameYear = new Date(now).getFullYear() === new Date(now + 40 * 24 * 3_600_000).getFullYear();
    await expect.poll(() => list(tab40).getByRole('heading').allTextContents(), { timeout: 30_000 }).toEqual(['Pinned', sameYear ? month : `${month} ${new Date(now).getFullYear()}`]);
    expect(await names(tab40)).toEqual(['Tell me about otters', 'Tell me about crows']);
  });
});
