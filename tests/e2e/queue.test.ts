/**
 * The queue in Chromium: Send while a reply generates queues the message in "Queued messages"; a queued message
 * can be removed; the queue survives a reload mid-reply (the engine restarts, resumes the reply, then sends what
 * was queued), with the SharedWorker broker and without it.
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
    getStack().upstream.setScript(slowReply(80, 40, 'w'));
    await send(page, 'First, a long one');
    await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor({ timeout: 15_000 });

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
    await page.getByRole('list', { name: 'Queued messages' }).getByText('Queued second').waitFor({ timeout: 15_000 });
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
    await expect.poll(() => assistant(page).nth(1).getAttribute('data-status'), { timeout: 15_000 }).toBe('done');
    expect(await assistant(page).first().textContent()).toContain('w80');
    expect(await page.getByRole('list', { name: 'Queued messages' }).count()).toBe(0);
    expect(await user(page).count()).toBe(2);
  });
});
