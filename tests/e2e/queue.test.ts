/**
 * The queue in Chromium: Send while a reply generates queues the message in "Queued messages"; a queued message
 * can be removed; the queue survives a reload mid-reply (the engine restarts, resumes the reply, then sends what
 * was queued), with the SharedWorker broker and without it. When the reply ends, the next queued message is put in the
 * message input and sent from there (spec 000 section 4): the user sees it go and can stop its reply.
 */
import { describe, expect, it } from 'vitest';
import { FREE_MODEL, assistant, chooseModel, openApp, send, slowReply, user, useStack } from './stack';

const getStack = useStack();

describe.each([
  { mode: 'SharedWorker broker', withoutSharedWorker: false },
  { mode: 'BroadcastChannel relay (SharedWorker removed)', withoutSharedWorker: true },
])('queue: $mode', ({ withoutSharedWorker }) => {
  it('queues Send during a reply, removes on request, and sends the rest after a reload', async () => {
    const context = await getStack().newContext({ withoutSharedWorker });
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    // Long enough to be still streaming after the reload below, on a busy machine too.
    getStack().upstream.setScript(slowReply(150, 40, 'w'));
    await send(page, 'First, a long one');
    await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor({ timeout: 60_000 });

    await send(page, 'Queued second');
    await send(page, 'Queued third');
    const queue = page.getByRole('list', { name: 'Queued messages' });
    await expect.poll(() => queue.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Queued second'), expect.stringContaining('Queued third')]);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');
    const shots = process.env.PARLEY_E2E_SHOTS;
    if (shots && !withoutSharedWorker) {
      await page.setViewportSize({ width: 1366, height: 900 });
      await page.screenshot({ path: `${shots}/queue-1366.png` });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(400);
      await page.screenshot({ path: `${shots}/queue-390.png` });
    }
    await queue.getByRole('button', { name: /Remove queued message: Queued third/ }).click();
    await expect.poll(() => queue.getByRole('listitem').count()).toBe(1);

    // Reload mid-reply: the queue is engine data, so it is still there, and it is sent once the reply ends.
    await page.reload();
    await page.getByRole('list', { name: 'Queued messages' }).getByText('Queued second').waitFor({ timeout: 60_000 });
    getStack().upstream.setScript(slowReply(3, 10, 'next'));
    // The queue is part of the conversation's view: the moment the queued message shows as sent, it has left the queue.
    const sentAndQueued = await page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const seen = () => {
            const users = [...document.querySelectorAll('article[data-role="user"]')].map((a) => a.textContent ?? '');
            if (!users.some((t) => t.includes('Queued second'))) return false;
            const queued = [...document.querySelectorAll('[aria-label="Queued messages"] li')].map((li) => li.textContent ?? '');
            observer.disconnect();
            resolve(queued);
            return true;
          };
          const observer = new MutationObserver(() => void seen());
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
          seen();
        }),
    );
    expect(sentAndQueued).toEqual([]);
    await expect.poll(() => user(page).allTextContents(), { timeout: 30_000 }).toEqual([expect.stringContaining('First, a long one'), expect.stringContaining('Queued second')]);
    await expect.poll(() => assistant(page).nth(1).getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    expect(await assistant(page).first().textContent()).toContain('w150');
    expect(await page.getByRole('list', { name: 'Queued messages' }).count()).toBe(0);
    expect(await user(page).count()).toBe(2);
  });
});

describe('queue: the next message goes through the input', () => {
  it('puts the queued message in the input, sends it from there, gives the draft back, and its reply can be stopped', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(slowReply(60, 40, 'w'));
    await send(page, 'First, a long one');
    await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor({ timeout: 60_000 });
    await send(page, 'Queued via the input');
    const queue = page.getByRole('list', { name: 'Queued messages' });
    await queue.getByText('Queued via the input').waitFor({ timeout: 60_000 });
    // The queued message's reply is a long one, to be stopped.
    getStack().upstream.setScript(slowReply(400, 50, 'q'));
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('half-typed draft');
    // Every value the input shows, frame by frame, until the queued message is sent.
    const shown = page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const values: string[] = [];
          const tick = () => {
            const value = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]')?.value ?? '';
            if (values.at(-1) !== value) values.push(value);
            const users = [...document.querySelectorAll('article[data-role="user"]')].map((a) => a.textContent ?? '');
            if (users.some((t) => t.includes('Queued via the input')) && value === 'half-typed draft') resolve(values);
            else requestAnimationFrame(tick);
          };
          tick();
        }),
    );
    expect(await shown).toEqual(['half-typed draft', 'Queued via the input', 'half-typed draft']);
    expect(await queue.count()).toBe(0);
    // Its reply streams like any other, and Stop ends it.
    await expect.poll(() => assistant(page).nth(1).getAttribute('data-status'), { timeout: 60_000 }).toBe('streaming');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => assistant(page).nth(1).getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    const text = (await assistant(page).nth(1).textContent()) ?? '';
    expect(text).toContain('q1');
    expect(text).not.toContain('q400');
    expect(await user(page).allTextContents()).toEqual([expect.stringContaining('First, a long one'), expect.stringContaining('Queued via the input')]);
    expect(await input.inputValue()).toBe('half-typed draft');
  });
});
