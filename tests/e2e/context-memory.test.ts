import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, assistant, chooseModel, openApp, send, user, useStack } from './stack';

const getStack = useStack();

describe('context memory (a provider 413), end to end in Chromium', () => {
  it("shows the spec's notice with the parsed time and tokens, keeps the message, and Resend sends it again", async () => {
    const stack = getStack();
    stack.upstream.setScript({
      error: {
        status: 413,
        body: { error: { message: 'Context memory is indexing your conversation (48213 tokens). Estimated time: 30 seconds.', type: 'request_too_large' } },
      },
    });
    const context = await stack.newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Summarise everything we said so far.');

    const notice = page.getByRole('region', { name: 'Notifications' }).locator('.notice').filter({ hasText: 'Context Memory is indexing your conversation' });
    await notice.waitFor();
    expect(await notice.locator('.notice-text').textContent()).toBe(
      'Indexing 48,213 tokens; estimated time 30 seconds. When it has finished, press Resend to send your message.',
    );
    // The user's message is kept (marked failed), no reply is left pending.
    await page.locator('article[data-role="user"][data-status="error"]').waitFor();
    expect(await user(page).count()).toBe(1);
    expect(await user(page).first().textContent()).toContain('Summarise everything we said so far.');
    expect(await assistant(page).count()).toBe(0);
    const asked = stack.upstream.requests.length;

    // Indexing done: Resend sends the same prompt again and the reply arrives under it.
    stack.upstream.setScript(textReply('Here is the summary.'));
    await notice.getByRole('button', { name: 'Resend' }).click();
    await assistant(page).filter({ hasText: 'Here is the summary.' }).waitFor();
    await expect.poll(() => page.locator('article[data-role="user"][data-status="error"]').count()).toBe(0);
    expect(await user(page).count()).toBe(1);
    const resent = stack.upstream.requests.slice(asked).find((r) => JSON.stringify(r.body).includes('Summarise everything we said so far.'));
    expect(resent).toBeDefined();
    expect(await notice.count()).toBe(0);
  });
});
