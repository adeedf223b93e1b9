import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, PAID_MODEL, assistant, chooseModel, modelPicker, openApp, send, slowReply, useStack, waitForModels } from './stack';

const getStack = useStack();

const PHONE = { width: 390, height: 844 };

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error('element has no box (not visible)');
  return b;
}
function overlaps(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
const focusedLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName ?? '');

describe('layout', () => {
  it('phone layout: "Menu" opens the conversation list; choosing a conversation, Escape and the backdrop close it', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize(PHONE);
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(textReply('First reply.'));
    await send(page, 'First chat');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const firstPath = new URL(page.url()).pathname;
    await page.goto('/conversation/new');

    const list = page.getByRole('navigation', { name: 'Conversations' });
    const menu = page.getByRole('button', { name: 'Menu' });
    // Closed: the list is not shown, nothing sticks out sideways.
    await menu.waitFor();
    expect(await list.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');

    // Menu opens it; Escape closes it and gives the focus back to Menu.
    await menu.click();
    await list.waitFor({ state: 'visible' });
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect((await box(list)).width).toBeLessThanOrEqual(PHONE.width);
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Menu');

    // A click on the backdrop (right of the drawer) closes it.
    await menu.click();
    await list.waitFor({ state: 'visible' });
    await page.mouse.click(PHONE.width - 10, PHONE.height / 2);
    await list.waitFor({ state: 'hidden' });

    // Choosing a conversation goes there and closes the drawer; the page links are in it too.
    await menu.click();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Settings' }).waitFor({ state: 'visible' });
    await list.getByRole('link', { name: 'First chat' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(firstPath);
    await list.waitFor({ state: 'hidden' });
    await assistant(page).first().waitFor();

    // The header, messages and composer fit the phone's width.
    for (const part of [page.locator('.conversation-header'), page.getByRole('region', { name: 'Messages' }), page.getByRole('textbox', { name: 'Message' })]) {
      const b = await box(part);
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width).toBeLessThanOrEqual(PHONE.width + 0.5);
    }
  });

  it('phone: one header row (Menu, title, model, "More actions"), the conversation takes at least 70% of a 390x844 screen with no notice and 60% with one, in every mode', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize(PHONE);
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(textReply('A reply.'));
    await send(page, 'A phone chat');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await page.getByRole('dialog', { name: 'Automatic titles' }).getByRole('button', { name: 'No' }).click();

    // One row: the four controls share a line, and the header is one control high.
    const row = await Promise.all([page.getByRole('button', { name: 'Menu' }), page.getByRole('heading', { level: 1 }), modelPicker(page), page.getByRole('button', { name: 'More actions' })].map(box));
    const middle = (b: { y: number; height: number }) => b.y + b.height / 2;
    for (const b of row) expect(Math.abs(middle(b) - middle(row[0]!))).toBeLessThan(6);
    expect((await box(page.locator('.conversation-header'))).height).toBeLessThan(60);
    // Instructions, Export and Scratchpad wait behind "More actions".
    const instructions = page.getByRole('button', { name: 'Instructions' });
    expect(await instructions.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'More actions' }).click();
    for (const name of ['Instructions', 'Export', 'Scratchpad']) await page.getByRole('button', { name, exact: true }).waitFor({ state: 'visible' });
    await instructions.click();
    await page.getByRole('dialog', { name: 'System prompt' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'System prompt' }).waitFor({ state: 'hidden' });
    await page.mouse.click(PHONE.width / 2, PHONE.height / 2);
    await instructions.waitFor({ state: 'hidden' });

    const messages = page.getByRole('region', { name: 'Messages' });
    const notices = page.getByRole('region', { name: 'Notifications' });
    const share = async () => {
      const m = await box(messages);
      const n = (await notices.locator('.notice').count()) > 0 ? await box(notices) : null;
      return (m.height - (n ? n.height : 0)) / PHONE.height;
    };
    for (const mode of ['Chat', 'Image', 'Video', 'Audio', 'Voice']) {
      await page.getByRole('radiogroup', { name: 'Mode' }).getByText(mode, { exact: true }).click();
      await expect.poll(share, { message: `${mode} mode` }).toBeGreaterThanOrEqual(0.7);
    }
    await page.getByRole('radiogroup', { name: 'Mode' }).getByText('Chat', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await notices.getByText('Message is required').waitFor();
    expect(await share()).toBeGreaterThanOrEqual(0.6);
  });

  it('phone composer and empty state at 390x844: no control cut off, "More tools" holds Add model and Web search, the suggestions page sideways with arrows inside the page, one "Add balance" card', async () => {
    const context = await getStack().newContext();
    const page = await context.newPage();
    await page.setViewportSize(PHONE);
    await page.goto('/conversation/new');
    await waitForModels(page);
    // From page load the message box has the focus.
    await expect.poll(() => focusedLabel(page)).toBe('Message');
    const suggestions = page.getByRole('region', { name: 'Suggestions' });
    await suggestions.getByRole('listitem').first().waitFor();

    // Every composer control is inside the viewport, or inside a strip that scrolls sideways.
    const cut = () =>
      page.evaluate(() => {
        const out: string[] = [];
        const area = document.querySelector('.composer-area');
        for (const el of area ? Array.from(area.querySelectorAll<HTMLElement>('button, textarea, select, summary, label, [role="switch"], [role="separator"]')) : []) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
          if (r.left >= 0 && r.right <= window.innerWidth + 0.5) continue;
          let scroller: HTMLElement | null = el.parentElement;
          while (scroller && !(/(auto|scroll)/.test(getComputedStyle(scroller).overflowX) && scroller.scrollWidth > scroller.clientWidth)) scroller = scroller.parentElement;
          if (!scroller) out.push(el.getAttribute('aria-label') ?? el.textContent ?? el.tagName);
        }
        return out;
      });
    expect(await cut()).toEqual([]);
    // No bare "width handle" line on a phone: the input fills the width and grows with its text.
    expect(await page.getByRole('separator', { name: 'Resize message input height' }).isVisible()).toBe(false);
    expect(await page.getByRole('separator', { name: 'Resize message input width' }).isVisible()).toBe(false);

    // Add model and Web search wait behind "More tools"; opened, they are whole and usable; Escape closes it.
    const more = page.getByRole('button', { name: 'More tools' });
    const addModel = page.getByRole('button', { name: 'Add model' });
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    expect(await addModel.isVisible()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Web search' }).isVisible()).toBe(false);
    await more.click();
    await addModel.waitFor({ state: 'visible' });
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    for (const control of [addModel, page.getByRole('switch', { name: 'Web search' })]) {
      const b = await box(control);
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width).toBeLessThanOrEqual(PHONE.width);
    }
    expect(await cut()).toEqual([]);
    await page.keyboard.press('Escape');
    await addModel.waitFor({ state: 'hidden' });
    expect(await focusedLabel(page)).toBe('More tools');

    // The suggestions never widen the page; one "Add balance" card; the arrows page the strip.
    expect(await page.evaluate(() => (document.scrollingElement?.scrollWidth ?? Infinity) <= window.innerWidth)).toBe(true);
    expect(await suggestions.getByRole('link', { name: /Add balance/ }).count()).toBe(1);
    const strip = suggestions.getByRole('list');
    expect(await page.getByRole('button', { name: 'Previous suggestions' }).count()).toBe(0); // hidden at the start
    for (const arrow of [page.getByRole('button', { name: 'Next suggestions' })]) {
      const b = await box(arrow);
      expect(b.x + b.width).toBeLessThanOrEqual(PHONE.width);
      await arrow.click();
    }
    await expect.poll(() => strip.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Previous suggestions' }).waitFor();
    expect(await page.evaluate(() => (document.scrollingElement?.scrollWidth ?? Infinity) <= window.innerWidth)).toBe(true);

    // On a wide screen the tools sit in the row (no "More tools"), and the resize handles are named grips.
    await page.setViewportSize({ width: 1366, height: 850 });
    await addModel.waitFor({ state: 'visible' });
    expect(await more.isVisible()).toBe(false);
    expect(await page.getByRole('separator', { name: 'Resize message input width' }).getAttribute('title')).toContain('Resize message input width');
    expect(await page.evaluate(() => (document.scrollingElement?.scrollWidth ?? Infinity) <= window.innerWidth)).toBe(true);
  });

  it('focus after first send: the message input has the focus on load and keeps it after the first send moves to the new route', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await expect.poll(() => focusedLabel(page)).toBe('Message');
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(textReply('Hello back.'));
    // Typed and sent with Enter.
    await page.getByRole('textbox', { name: 'Message' }).focus();
    await page.keyboard.type('Hello there');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/conversation\/hello-there-[a-z0-9]{7}$/);
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await expect.poll(() => focusedLabel(page)).toBe('Message');
    // The next message can be typed straight away.
    getStack().upstream.setScript(textReply('Second.'));
    await page.keyboard.type('And again');
    await page.keyboard.press('Enter');
    await expect.poll(() => assistant(page).count()).toBe(2);
    await expect.poll(() => focusedLabel(page)).toBe('Message');

    // Sent with the Send button in a new conversation: the focus still comes back to the input.
    await page.goto('/conversation/new');
    await expect.poll(() => focusedLabel(page)).toBe('Message');
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(textReply('By button.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Clicked send');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/conversation\/clicked-send-/);
    await expect.poll(() => focusedLabel(page)).toBe('Message');
  });

  it('notices float: the header, the messages and the composer keep their place and are not covered; at most three show, "+1 more" opens the rest', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    const region = page.getByRole('region', { name: 'Notifications' });
    for (const size of [PHONE, { width: 1366, height: 850 }]) {
      await page.setViewportSize(size);
      await chooseModel(page, FREE_MODEL);
      const parts = [page.locator('.conversation-header'), page.getByRole('region', { name: 'Messages' }), page.locator('form.composer')];
      const before = await Promise.all(parts.map(box));
      await page.getByRole('textbox', { name: 'Message' }).fill('   ');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      const notice = region.getByRole('status').filter({ hasText: 'Message is required' });
      await notice.waitFor();
      // Nothing moved: the notice takes no room in the page.
      expect(await Promise.all(parts.map(box))).toEqual(before);
      const n = await box(notice);
      expect(overlaps(n, await box(page.locator('.conversation-header')))).toBe(false);
      expect(overlaps(n, await box(page.locator('.composer-area')))).toBe(false);
      // Compact: title and close button on one row (no row of its own for the button).
      const dismiss = await box(notice.getByRole('button', { name: 'Dismiss' }));
      expect(dismiss.y).toBeLessThan(n.y + 20);
      expect(n.height).toBeLessThan(80);
      await notice.getByRole('button', { name: 'Dismiss' }).click();
      await notice.waitFor({ state: 'detached' });
    }

    // Four notices at once (the page's clock paused so that none closes meanwhile): three show, then "+1 more".
    await page.clock.install();
    await page.goto('/conversation/new?mode=bogus&model=nope');
    await waitForModels(page);
    await page.clock.pauseAt(Date.now() + 1000);
    await region.getByText('Unknown mode: bogus').waitFor();
    await region.getByText('Unknown model: nope').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await context.setOffline(true);
    await region.getByRole('alert').filter({ hasText: 'Internet connection lost' }).waitFor();
    expect(await region.locator('.notice').count()).toBe(3);
    expect(await region.getByText('Unknown mode: bogus').count()).toBe(0);
    await region.getByRole('button', { name: '+1 more' }).click();
    await region.getByText('Unknown mode: bogus').waitFor();
    expect(await region.locator('.notice').count()).toBe(4);
    await context.setOffline(false);
  });

  it('Escape stops a streaming reply and keeps what arrived', async () => {
    getStack().upstream.setScript(slowReply(200, 40, 'bit'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Tell me a long story');
    await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    const text = (await assistant(page).first().textContent()) ?? '';
    expect(text).toContain('bit1');
    expect(text).not.toContain('bit200');
  });

  it('"Jump to latest" appears when scrolled up and brings the end back', async () => {
    const long = Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n\n');
    getStack().upstream.setScript(textReply(long, { chunkSize: 400 }));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize({ width: 1366, height: 700 });
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Write a lot');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const messages = page.getByRole('region', { name: 'Messages' });
    const atEnd = () => messages.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 80);
    // It followed the reply to its end.
    await expect.poll(atEnd).toBe(true);
    const jump = page.getByRole('button', { name: 'Jump to latest' });
    expect(await jump.count()).toBe(0);
    await messages.evaluate((el) => el.scrollTo({ top: 0 }));
    await jump.waitFor();
    await jump.click();
    await expect.poll(atEnd).toBe(true);
    await jump.waitFor({ state: 'detached' });
  });

  it('code blocks get colours (highlight.js loaded on demand) and a "Copy code" button', async () => {
    getStack().upstream.setScript(textReply('Here:\n\n```js\nconst answer = 42; // the answer\nfunction f() { return "x"; }\n```\n'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    const scripts = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('common') || n.includes('highlight')));
    expect(await scripts()).toEqual([]);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Show me code');
    const block = page.locator('article[data-role="assistant"] .code-block');
    await block.waitFor();
    await block.locator('.hljs-keyword').first().waitFor();
    expect(await block.locator('.hljs-keyword').first().textContent()).toBe('const');
    expect(await block.locator('.hljs-comment').textContent()).toBe('// the answer');
    await block.getByRole('button', { name: 'Copy code' }).waitFor();
    expect(await scripts()).not.toEqual([]);
  });
});

describe('reply details', () => {
  it('each reply shows its tokens and cost; "Show thinking" off hides the reasoning', async () => {
    getStack().upstream.setScript(textReply('Short answer.', { reasoning: 'Pondering.', usage: { prompt_tokens: 5, completion_tokens: 7 } }));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Quick one');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const reply = assistant(page).first();
    expect(await reply.getAttribute('data-model')).toBe(FREE_MODEL);
    await expect.poll(() => reply.getByLabel('Reply details').textContent()).toBe('7 tokens · free');
    expect(await reply.locator('.thinking').isVisible()).toBe(true);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('switch', { name: 'Show thinking' }).click();
    await page.goBack();
    await assistant(page).first().waitFor();
    await expect.poll(() => assistant(page).first().locator('.thinking').isVisible()).toBe(false);
  });
});

describe('composer counts and the thanks detector', () => {
  it('recounts tokens 400 ms after the last keystroke, not on each one; a short thank-you is marked, a long one is not', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    const counts = page.getByLabel('Token counts');
    await expect.poll(() => counts.textContent()).toContain('Input 0');
    // Typed in the page itself, and read 200 ms later: timers fire in deadline order, so the 400 ms recount has not
    // run yet whatever the load; then it does.
    const before = await page.evaluate(async () => {
      const input = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]') as HTMLTextAreaElement;
      const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set;
      setValue?.call(input, 'one two three four five six seven eight nine ten eleven twelve');
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 200));
      return document.querySelector('[aria-label="Token counts"]')?.textContent ?? '';
    });
    expect(before).toContain('Input 0');
    await expect.poll(() => counts.textContent()).toMatch(/Input [1-9]/);

    getStack().upstream.setScript(textReply('You are welcome.'));
    await page.getByRole('textbox', { name: 'Message' }).fill('Thanks a lot!');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await page.locator('article[data-role="user"]').first().getByRole('img', { name: 'Thankful' }).waitFor();
    await send(page, `Thanks, but ${'please explain this in much more detail '.repeat(6)}`);
    await expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count()).toBe(2);
    expect(await page.locator('article[data-role="user"]').nth(1).getByRole('img', { name: 'Thankful' }).count()).toBe(0);
  });
});

describe('model picker', () => {
  it('is a searchable list grouped by provider, with prices and the free ones marked, usable by keyboard', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    const picker = modelPicker(page);
    await picker.focus();
    await page.keyboard.press('ArrowDown');
    const search = page.getByRole('searchbox', { name: 'Search models' });
    await search.waitFor();
    expect(await focusedLabel(page)).toBe('Search models');
    const list = page.getByRole('listbox', { name: 'Model' });
    // Grouped by provider, the free model marked, the paid one with its price per million tokens.
    expect(await list.getByRole('group').count()).toBeGreaterThanOrEqual(1);
    const free = list.getByRole('option').and(page.locator(`[data-value="${FREE_MODEL}"]`));
    const paid = list.getByRole('option').and(page.locator(`[data-value="${PAID_MODEL}"]`));
    expect(await free.textContent()).toContain('Free');
    expect(await paid.textContent()).toContain('$1 / $2 per 1M tokens');
    expect(await paid.textContent()).not.toContain('Free');
    expect(await free.getAttribute('aria-selected')).toBe('true');
    // Typing filters; arrows move; Enter chooses and gives the focus back to the button.
    await page.keyboard.type('paid');
    await expect.poll(() => list.getByRole('option').count()).toBe(1);
    await page.keyboard.press('Enter');
    await search.waitFor({ state: 'detached' });
    expect(await picker.getAttribute('data-value')).toBe(PAID_MODEL);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('combobox');
    // Escape closes without choosing.
    await page.keyboard.press('ArrowDown');
    await search.waitFor();
    await page.keyboard.type('zzz-no-model');
    await list.getByText('No model matches').waitFor();
    await page.keyboard.press('Escape');
    await search.waitFor({ state: 'detached' });
    expect(await picker.getAttribute('data-value')).toBe(PAID_MODEL);
  });
});

describe.each([
  { mode: 'SharedWorker broker', withoutSharedWorker: false },
  { mode: 'BroadcastChannel relay (SharedWorker removed)', withoutSharedWorker: true },
])('settings: $mode', ({ withoutSharedWorker }) => {
  it('the theme and other preferences are kept by the engine: they reach another tab and survive a reload', async () => {
    const context = await getStack().newContext({ withoutSharedWorker });
    const page = await openApp(context);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/settings');
    const theme = page.getByRole('combobox', { name: 'Theme' });
    await theme.selectOption('light');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    const lightBackground = 'rgb(247, 248, 250)';
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(lightBackground);
    await page.getByRole('switch', { name: 'Show thinking' }).waitFor();
    // The model, the replies and the message box are in the "Chat" section.
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Chat' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/settings/chat');

    // Max tokens: a bad value is explained and not saved; a good one is.
    const maxTokens = page.getByRole('spinbutton', { name: 'Max tokens' });
    expect(await maxTokens.inputValue()).toBe('8192');
    await maxTokens.fill('0');
    await maxTokens.press('Enter');
    await page.getByText('Enter a whole number from 1 to 1000000.').waitFor();
    await maxTokens.fill('4096');
    await maxTokens.press('Tab');
    const enterSends = page.getByRole('switch', { name: 'Enter sends message' });
    expect(await enterSends.isChecked()).toBe(true);
    await enterSends.click();
    await page.getByRole('switch', { name: 'Auto-generate titles' }).waitFor();

    // Default model: the same picker, with "no choice" first.
    await page.getByRole('combobox', { name: 'Default model' }).click();
    await page.getByRole('searchbox', { name: 'Search models' }).fill(FREE_MODEL);
    await page.getByRole('option').and(page.locator(`[data-value="${FREE_MODEL}"]`)).click();
    await expect.poll(() => page.getByRole('combobox', { name: 'Default model' }).getAttribute('data-value')).toBe(FREE_MODEL);

    // Another tab of the same profile sees them at once.
    const other = await context.newPage();
    await other.goto('/settings/chat');
    await expect.poll(() => other.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await expect.poll(() => other.getByRole('spinbutton', { name: 'Max tokens' }).inputValue()).toBe('4096');
    expect(await other.getByRole('switch', { name: 'Enter sends message' }).isChecked()).toBe(false);

    // And a reload keeps them; a new conversation starts with the default model.
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(lightBackground);
    await expect.poll(() => page.getByRole('spinbutton', { name: 'Max tokens' }).inputValue()).toBe('4096');
    await page.goto('/conversation/new');
    await expect.poll(() => modelPicker(page).getAttribute('data-value')).toBe(FREE_MODEL);

    // System follows the colour scheme the browser reports, live. (Media query changes are reported when the page
    // renders: it must be the tab in front.)
    await page.bringToFront();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto('/settings');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme), { timeout: 5000 }).toBe('light');
  });
});

describe('composer settings', () => {
  it('"Enter sends message" off: Enter inserts a newline and sends nothing; Send still sends', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Chat' }).click();
    const enterSends = page.getByRole('switch', { name: 'Enter sends message' });
    await enterSends.click();
    await expect.poll(() => enterSends.isChecked()).toBe(false);
    await page.goto('/conversation/new');
    await waitForModels(page);
    await chooseModel(page, FREE_MODEL);
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.focus();
    await page.keyboard.type('line one');
    await page.keyboard.press('Enter');
    await page.keyboard.type('line two');
    expect(await input.inputValue()).toBe('line one\nline two');
    await page.waitForTimeout(500);
    expect(await page.locator('article[data-role="user"]').count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe('/conversation/new');
    getStack().upstream.setScript(textReply('Two lines read.'));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    expect(await page.locator('article[data-role="user"]').first().textContent()).toContain('line one');
  });
});
