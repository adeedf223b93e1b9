/**
 * Connectivity (spec 001 sections 4 and 8): offline shows the red persistent notice, back online the green one that
 * closes after 3 s; a message sent offline is kept and its reply waits for the network instead of failing.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { assistant, chooseModel, FREE_MODEL, openApp, send, user, useStack } from './stack';

const getStack = useStack();

describe('connectivity', () => {
  it('offline and online notices; a message sent offline is answered once back online', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    const notices = page.getByRole('region', { name: 'Notifications' });

    await context.setOffline(true);
    const lost = notices.getByRole('alert').filter({ hasText: 'Internet connection lost' });
    await lost.waitFor();
    expect(await lost.textContent()).toContain('Your device appears to be offline. Some features may be unavailable.');

    getStack().upstream.setScript(textReply('Answered after the network came back.'));
    await send(page, 'Sent while offline');
    await user(page).first().waitFor();
    expect(await user(page).first().textContent()).toContain('Sent while offline');
    // The reply waits (pending), it does not fail.
    await page.waitForTimeout(1500);
    expect(await assistant(page).first().getAttribute('data-status')).toBe('pending');
    // Persistent: still there.
    expect(await lost.count()).toBe(1);

    await context.setOffline(false);
    const restored = notices.getByRole('status').filter({ hasText: 'Internet connection restored' });
    await restored.waitFor();
    expect(await restored.textContent()).toContain("You're back online");
    expect(await lost.count()).toBe(0);
    await expect.poll(() => assistant(page).first().getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    expect(await assistant(page).first().textContent()).toContain('Answered after the network came back.');
    // Closes by itself after 3 s.
    await restored.waitFor({ state: 'detached', timeout: 6000 });
  });
});
