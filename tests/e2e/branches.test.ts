/**
 * The message tree in Chromium (issue 6 items 4, 5, 6 and 12): the branch navigator with 10 alternatives and the
 * 11th refused, a switch refused while a reply generates, Edit as a new branch, Duplicate from here, Delete with
 * Undo, the actions under each message (issue 16) and the menu's keyboard use; in both the SharedWorker and the no-SharedWorker modes where the engine path differs.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, assistant, chooseModel, openApp, send, slowReply, user, useStack } from './stack';

const getStack = useStack();

/** Actions also shown under the message as icon buttons (issue 16); every action is in its "Message actions" menu. */
const INLINE = new Set(['Copy text', 'Regenerate', 'Edit', 'Read aloud']);

async function action(page: Page, article: ReturnType<Page['locator']>, name: string): Promise<void> {
  if (INLINE.has(name)) return article.getByRole('button', { name, exact: true }).click();
  await article.getByRole('button', { name: 'Message actions' }).click();
  await page.getByRole('menuitem', { name, exact: true }).click();
}

const doneReplies = (page: Page) => page.locator('article[data-role="assistant"][data-status="done"]');
const notice = (page: Page, title: string) => page.getByRole('region', { name: 'Notifications' }).getByText(title, { exact: true });

async function firstExchange(page: Page, answer: string): Promise<void> {
  await chooseModel(page, FREE_MODEL);
  getStack().upstream.setScript(textReply(answer));
  await send(page, 'Tell me something');
  await expect.poll(() => assistant(page).first().getAttribute('data-status')).toBe('done');
  await expect.poll(() => assistant(page).first().textContent()).toContain(answer);
}

describe.each([
  { mode: 'SharedWorker broker', withoutSharedWorker: false },
  { mode: 'no SharedWorker', withoutSharedWorker: true },
])('alternatives: $mode', ({ withoutSharedWorker }) => {
  it('Regenerate makes alternatives; the navigator moves between them, and everything after follows its branch', async () => {
    const page = await openApp(await getStack().newContext({ withoutSharedWorker }));
    await firstExchange(page, 'Answer one.');
    getStack().upstream.setScript(textReply('Answer two.'));
    await action(page, assistant(page).first(), 'Regenerate');
    await expect.poll(() => assistant(page).first().textContent()).toContain('Answer two.');
    const nav = assistant(page).first().getByRole('group', { name: 'Alternatives' });
    await expect.poll(() => nav.textContent()).toContain('2 / 2');

    getStack().upstream.setScript(textReply('Follow-up on two.'));
    await send(page, 'And then?');
    await expect.poll(() => doneReplies(page).count()).toBe(2);

    await nav.getByRole('button', { name: 'Previous alternative' }).click();
    await expect.poll(() => assistant(page).first().textContent()).toContain('Answer one.');
    expect(await nav.textContent()).toContain('1 / 2');
    await expect.poll(() => user(page).count()).toBe(1);
    await nav.getByRole('button', { name: 'Next alternative' }).click();
    await expect.poll(() => assistant(page).nth(1).textContent()).toContain('Follow-up on two.');
    expect(await user(page).nth(1).textContent()).toContain('And then?');
  });
});

describe('the message tree in the page', () => {
  it("keeps at most 10 alternatives: the 11th is refused with 'Alternative limit reached'", async () => {
    const page = await openApp(await getStack().newContext());
    await firstExchange(page, 'Alternative 1');
    for (let i = 2; i <= 10; i++) {
      getStack().upstream.setScript(textReply(`Alternative ${i}`));
      await action(page, assistant(page).first(), 'Regenerate');
      await expect.poll(() => assistant(page).first().getByRole('group', { name: 'Alternatives' }).textContent()).toContain(`${i} / ${i}`);
      await expect.poll(() => assistant(page).first().getAttribute('data-status')).toBe('done');
    }
    const requests = getStack().upstream.requests.length;
    await action(page, assistant(page).first(), 'Regenerate');
    await notice(page, 'Alternative limit reached').waitFor();
    await page.getByText('You can create up to 10 alternative responses per message').waitFor();
    expect(getStack().upstream.requests.length).toBe(requests);
    expect(await assistant(page).first().getByRole('group', { name: 'Alternatives' }).textContent()).toContain('10 / 10');
    // Walk back through all ten.
    const nav = assistant(page).first().getByRole('group', { name: 'Alternatives' });
    for (let i = 9; i >= 1; i--) {
      await nav.getByRole('button', { name: 'Previous alternative' }).click();
      await expect.poll(() => nav.textContent()).toContain(`${i} / 10`);
    }
    expect(await assistant(page).first().textContent()).toContain('Alternative 1');
    expect(await nav.getByRole('button', { name: 'Previous alternative' }).isDisabled()).toBe(true);
  });

  it("refuses a branch switch while a reply generates with 'Error switching conversation branch'", async () => {
    const page = await openApp(await getStack().newContext());
    await firstExchange(page, 'First.');
    getStack().upstream.setScript(textReply('Second.'));
    await action(page, assistant(page).first(), 'Regenerate');
    await expect.poll(() => assistant(page).first().textContent()).toContain('Second.');
    getStack().upstream.setScript(slowReply(60, 40));
    await send(page, 'A long one please');
    await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor();
    await assistant(page).first().getByRole('button', { name: 'Previous alternative' }).click();
    await notice(page, 'Error switching conversation branch').waitFor();
    expect(await assistant(page).first().textContent()).toContain('Second.');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => assistant(page).nth(1).getAttribute('data-status')).toBe('done');
  });

  it('Edit makes the edited prompt and its reply a new branch; the original stays reachable', async () => {
    const page = await openApp(await getStack().newContext());
    await firstExchange(page, 'Reply to the original.');
    await action(page, user(page).first(), 'Edit');
    const box = page.getByRole('textbox', { name: 'Edit message' });
    await box.fill('Tell me something else');
    getStack().upstream.setScript(textReply('Reply to the edit.'));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => assistant(page).first().textContent()).toContain('Reply to the edit.');
    expect(await user(page).first().textContent()).toContain('Tell me something else');
    const nav = user(page).first().getByRole('group', { name: 'Alternatives' });
    expect(await nav.textContent()).toContain('2 / 2');
    await nav.getByRole('button', { name: 'Previous alternative' }).click();
    await expect.poll(() => user(page).first().textContent()).toContain('Tell me something');
    await expect.poll(() => assistant(page).first().textContent()).toContain('Reply to the original.');
  });

  it("Duplicate from here opens a copy named ' (Copy)' up to that message; Delete removes a message", async () => {
    const page = await openApp(await getStack().newContext());
    await firstExchange(page, 'Kept in the copy.');
    getStack().upstream.setScript(textReply('Not in the copy.'));
    await send(page, 'Second question');
    await expect.poll(() => doneReplies(page).count()).toBe(2);
    const source = new URL(page.url()).pathname;
    await action(page, assistant(page).first(), 'Duplicate from here');
    await notice(page, 'Conversation duplicated').waitFor();
    await expect.poll(() => new URL(page.url()).pathname).not.toBe(source);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Tell me something (Copy)');
    await expect.poll(() => page.locator('article').count()).toBe(2);
    expect(await assistant(page).first().textContent()).toContain('Kept in the copy.');
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Tell me something (Copy)' }).waitFor();

    await action(page, assistant(page).first(), 'Delete');
    await expect.poll(() => page.locator('article').count()).toBe(1);
  });

  it("Delete says 'Message deleted' with Undo, which brings the message back in its place", async () => {
    const page = await openApp(await getStack().newContext());
    await firstExchange(page, 'First answer.');
    getStack().upstream.setScript(textReply('Second answer.'));
    await send(page, 'Second question');
    await expect.poll(() => doneReplies(page).count()).toBe(2);
    // The one-time title question floats over the end of the list, where the last prompt's actions are.
    await page.getByRole('dialog', { name: 'Automatic titles' }).getByRole('button', { name: 'No' }).click();
    const texts = () => page.locator('article').evaluateAll((list) => list.map((a) => a.querySelector('.message-body')?.textContent?.trim()));
    const before = await texts();
    await action(page, user(page).nth(1), 'Delete');
    await expect.poll(() => page.locator('article').count()).toBe(3);
    expect(await user(page).count()).toBe(1);
    await expect.poll(() => notice(page, 'Message deleted').count()).toBe(1);
    const region = page.getByRole('region', { name: 'Notifications' });
    expect(await region.getByText('Second question', { exact: true }).count()).toBe(1);
    await region.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(texts).toEqual(before);
    await expect.poll(() => notice(page, 'Message deleted').count()).toBe(0);
    // It is back for good: a reload shows it from the stored conversation.
    await page.reload();
    await expect.poll(texts).toEqual(before);
  });

  it('on a phone a reply\'s "Message actions" menu stays on the screen, and deleting from it leaves the list where it was', async () => {
    const page = await openApp(await getStack().newContext());
    await page.setViewportSize({ width: 390, height: 844 });
    await firstExchange(page, 'An answer to delete.');
    await page.getByRole('dialog', { name: 'Automatic titles' }).getByRole('button', { name: 'No' }).click();
    const reply = assistant(page).first();
    // A second alternative: the branch navigator stands first, so the menu button sits further right.
    getStack().upstream.setScript(textReply('Another answer to delete.'));
    await reply.getByRole('button', { name: 'Regenerate', exact: true }).click();
    await expect.poll(() => reply.textContent()).toContain('Another answer to delete.');
    await expect.poll(() => reply.getAttribute('data-status')).toBe('done');
    await reply.getByRole('button', { name: 'Message actions' }).click();
    const menu = page.getByRole('menu', { name: 'Message actions' });
    await menu.waitFor();
    // Every item whole on the screen (at the stylesheet's side it ran 50 px past the right edge).
    const box = (await menu.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    const messages = page.getByRole('region', { name: 'Messages' });
    expect(await messages.evaluate((el) => el.scrollLeft)).toBe(0);
    await page.getByRole('menuitem', { name: 'Delete', exact: true }).click();
    await expect.poll(() => notice(page, 'Message deleted').count()).toBe(1);
    expect(await messages.evaluate((el) => el.scrollLeft)).toBe(0);
    expect((await user(page).first().boundingBox())!.x + (await user(page).first().boundingBox())!.width).toBeLessThanOrEqual(390);
  });

  it('the actions show under the last message without a hover; others show theirs on hover', async () => {
    const page = await openApp(await getStack().newContext());
    await firstExchange(page, 'First answer.');
    getStack().upstream.setScript(textReply('Last answer.'));
    await send(page, 'Second question');
    await expect.poll(() => doneReplies(page).count()).toBe(2);
    await page.mouse.move(0, 0);
    const opacity = (article: ReturnType<Page['locator']>) => article.locator('.message-actions').evaluate((el) => getComputedStyle(el).opacity);
    const last = assistant(page).last();
    await expect.poll(() => opacity(last)).toBe('1');
    for (const name of ['Copy text', 'Regenerate', 'Read aloud', 'Message actions']) {
      const button = last.getByRole('button', { name, exact: true });
      expect(await button.isVisible()).toBe(true);
      // The icon's name is its tooltip too.
      expect(await button.getAttribute('data-tip')).toBe(name);
    }
    const first = assistant(page).first();
    await expect.poll(() => opacity(first)).toBe('0');
    await first.hover();
    await expect.poll(() => opacity(first)).toBe('1');
    // A prompt offers Edit, a reply Regenerate.
    expect(await user(page).first().getByRole('button', { name: 'Edit', exact: true }).count()).toBe(1);
    expect(await user(page).first().getByRole('button', { name: 'Regenerate', exact: true }).count()).toBe(0);
  });

  it('Continue extends a reply that stopped near max tokens, in place', async () => {
    const page = await openApp(await getStack().newContext());
    await chooseModel(page, FREE_MODEL);
    // 7,400 of the default 8,192 max tokens: within 10%.
    getStack().upstream.setScript(textReply('The story begins', { usage: { prompt_tokens: 5, completion_tokens: 7400 } }));
    await send(page, 'A very long story');
    await page.getByRole('button', { name: 'Continue' }).waitFor();
    getStack().upstream.setScript(textReply(' and ends well.', { usage: { prompt_tokens: 5, completion_tokens: 4 } }));
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => assistant(page).first().textContent()).toContain('The story begins and ends well.');
    expect(await assistant(page).count()).toBe(1);
    expect(getStack().upstream.requests.at(-1)?.body?.messages?.at(-1)).toEqual({ role: 'assistant', content: 'The story begins' });
    // 7,404 tokens now: still near the limit, so it can go on again.
    await page.getByRole('button', { name: 'Continue' }).waitFor();
  });

  it('Retry sends a failed prompt again', async () => {
    const page = await openApp(await getStack().newContext());
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript({ error: { status: 503, body: { error: { message: 'Overloaded', type: 'server_error' } } } });
    await send(page, 'Are you there?');
    await page.locator('article[data-role="user"][data-status="error"]').waitFor();
    getStack().upstream.setScript(textReply('Yes, now I am.'));
    await action(page, user(page).first(), 'Retry');
    await expect.poll(() => assistant(page).first().textContent()).toContain('Yes, now I am.');
    await expect.poll(() => user(page).first().getAttribute('data-status')).toBe('done');
  });

  it('the menu works from the keyboard and closes on Escape and on a click outside', async () => {
    const page = await openApp(await getStack().newContext());
    await firstExchange(page, 'Keyboard.');
    const button = assistant(page).first().getByRole('button', { name: 'Message actions' });
    await button.focus();
    await page.keyboard.press('Enter');
    const items = page.getByRole('menuitem');
    await expect.poll(() => items.allTextContents()).toEqual(['Copy text', 'Regenerate', 'Duplicate from here', 'Add to scratchpad', 'Read aloud', 'Delete']);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Copy text');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Regenerate');
    await page.keyboard.press('Escape');
    await expect.poll(() => items.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message actions');
    await button.click();
    await items.first().waitFor();
    await page.locator('h1').click();
    await expect.poll(() => items.count()).toBe(0);
    // A prompt offers Edit, not Regenerate.
    await user(page).first().getByRole('button', { name: 'Message actions' }).click();
    await expect.poll(() => items.allTextContents()).toEqual(['Copy text', 'Edit', 'Duplicate from here', 'Add to scratchpad', 'Read aloud', 'Delete']);
  });
});
