import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, assistant, chooseModel, openApp, send, slowReply, user, useStack } from './stack';

const getStack = useStack();

/** A leader tab with one finished exchange, and a follower tab open on the same conversation. */
async function leaderAndFollower(context: BrowserContext): Promise<{ leader: Page; follower: Page }> {
  const leader = await openApp(context);
  await chooseModel(leader, FREE_MODEL);
  getStack().upstream.setScript(textReply('Warm-up.'));
  await send(leader, 'Start');
  await leader.locator('article[data-role="assistant"][data-status="done"]').waitFor();
  const follower = await openApp(context, new URL(leader.url()).pathname);
  await follower.locator('article[data-role="assistant"][data-status="done"]').waitFor();
  return { leader, follower };
}

describe.each([
  { mode: 'SharedWorker broker', withoutSharedWorker: false },
  { mode: 'BroadcastChannel relay (SharedWorker removed)', withoutSharedWorker: true },
])('one engine for all tabs: $mode', ({ withoutSharedWorker }) => {
  it('two tabs see one conversation update live', async () => {
    const context = await getStack().newContext({ withoutSharedWorker });
    const a = await openApp(context);
    expect(await a.evaluate(() => typeof SharedWorker)).toBe(withoutSharedWorker ? 'undefined' : 'function');
    await chooseModel(a, FREE_MODEL);
    getStack().upstream.setScript(textReply('First reply.'));
    await send(a, 'Hello from tab A');
    await a.locator('article[data-role="assistant"][data-status="done"]').waitFor();

    const b = await openApp(context, new URL(a.url()).pathname);
    await b.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    expect(await b.getByRole('navigation', { name: 'Conversations' }).getByRole('link').allTextContents()).toContain('Hello from tab A');

    // A second message from A streams into B as it arrives.
    getStack().upstream.setScript(slowReply(30, 60, 'live'));
    await send(a, 'Stream to both tabs');
    await b.locator('article[data-role="assistant"][data-status="streaming"]').waitFor();
    await expect.poll(() => user(b).nth(1).textContent()).toContain('Stream to both tabs');
    await expect.poll(() => assistant(b).nth(1).getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    expect(await assistant(b).nth(1).textContent()).toContain('live30');

    // And B can send too: its command runs in the same engine.
    getStack().upstream.setScript(textReply('Reply to B.'));
    await send(b, 'Now from tab B');
    await expect.poll(() => assistant(a).nth(2).textContent(), { timeout: 60_000 }).toContain('Reply to B.');
  });

  it('three tabs opened at the same moment all reach the one engine', async () => {
    const context = await getStack().newContext({ withoutSharedWorker });
    const pages = await Promise.all([openApp(context), openApp(context), openApp(context)]);
    // Exactly one engine: every tab's conversation list updates from a send in any tab.
    getStack().upstream.setScript(textReply('Seen by all.'));
    const [first, second, third] = pages as [(typeof pages)[0], (typeof pages)[0], (typeof pages)[0]];
    await chooseModel(third, FREE_MODEL);
    await send(third, 'Hello, three tabs');
    for (const page of [first, second, third]) {
      await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Hello, three tabs' }).waitFor();
    }
    const held = await first.evaluate(async () => (await navigator.locks.query()).held?.filter((l) => l.name === 'parley-engine-leader').length ?? 0);
    expect(held).toBe(1);
  });

  it('the leader tab closes mid-stream and the other tab resumes the reply to its end', async () => {
    const context = await getStack().newContext({ withoutSharedWorker });
    const { leader, follower } = await leaderAndFollower(context);

    // A long reply: 120 words, one every 30 ms (3.6 s), started from the follower but run by the leader's engine.
    getStack().upstream.setScript(slowReply(120, 30, 'tok'));
    const upstreamRequests = getStack().upstream.requests.length;
    await send(follower, 'A long answer please');
    await follower.locator('article[data-role="assistant"][data-status="streaming"]').waitFor();
    await expect.poll(() => assistant(follower).nth(1).textContent()).toContain('tok5 ');
    await leader.close();

    // The follower becomes the leader, its engine resumes the reply from the gateway, and it finishes whole:
    // the same upstream request, never restarted, nothing lost.
    const reply = assistant(follower).nth(1);
    await expect.poll(() => reply.getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    const text = (await reply.textContent()) ?? '';
    expect(text).toContain('tok1 tok2 tok3');
    expect(text).toContain('tok120');
    expect(text).not.toContain('interrupted');
    expect(getStack().upstream.requests.length).toBe(upstreamRequests + 1);
    expect(getStack().upstream.requests.at(-1)?.aborted).toBe(false);
    expect(await user(follower).nth(1).textContent()).toContain('A long answer please');

    // The new leader's engine serves new work, and all of it survives a reload.
    getStack().upstream.setScript(textReply('After the handover.'));
    await send(follower, 'Are you still there?');
    await expect.poll(() => assistant(follower).nth(2).textContent(), { timeout: 60_000 }).toContain('After the handover.');
    await follower.reload();
    await expect.poll(() => assistant(follower).count()).toBe(3);
    expect(await assistant(follower).nth(1).textContent()).toContain('tok120');
  });

  it('marks the reply interrupted, keeping its checkpoint and the prompt, when the gateway lost it', async () => {
    const context = await getStack().newContext({ withoutSharedWorker });
    // The gateway answers that it no longer has the reply (as after a restart).
    await context.route('**/api/stream-gpt/resume', (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: 'REPLY_NOT_FOUND', message: 'gone' }) }),
    );
    const { leader, follower } = await leaderAndFollower(context);

    getStack().upstream.setScript(slowReply(200, 30, 'tok'));
    await send(follower, 'A long answer please');
    await follower.locator('article[data-role="assistant"][data-status="streaming"]').waitFor();
    await follower.waitForTimeout(2600); // at least one checkpoint (every 2 s)
    await leader.close();

    const interrupted = follower.locator('article[data-role="assistant"][data-status="error"]');
    await interrupted.waitFor({ timeout: 60_000 });
    expect(await interrupted.textContent()).toContain('Reply interrupted');
    expect(await interrupted.textContent()).toContain('tok1 ');
    expect(await user(follower).nth(1).textContent()).toContain('A long answer please');
  });
});
