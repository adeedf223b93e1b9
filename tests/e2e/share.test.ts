/**
 * Share links in Chromium (issue 20, spec 001 section 2): "Share" in the conversation's header, "Download file",
 * "Publish link", the link opened in another browser (no Parley data of its own): read-only, with the app's message
 * view and a working branch navigator, and nothing from the shared text runs; "Delete published link" -> 404.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { decodeLog } from '../../src/events/codec';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, assistant, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();
const HOSTILE = 'Answer one. <img src="x" onerror="window.pwned=1"> <script>window.pwned=2</script> [link](javascript:window.pwned=3)';

describe('share links', () => {
  it('publishes a read-only link another browser opens with its branches; the owner deletes it', async () => {
    const page = await openApp(await getStack().newContext());
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(textReply(HOSTILE));
    await send(page, 'Tell me something');
    await expect.poll(() => assistant(page).first().getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    getStack().upstream.setScript(textReply('Answer two.'));
    await assistant(page).first().getByRole('button', { name: 'Regenerate', exact: true }).click();
    await expect.poll(() => assistant(page).first().textContent(), { timeout: 60_000 }).toContain('Answer two.');
    await expect.poll(() => assistant(page).first().getAttribute('data-status'), { timeout: 60_000 }).toBe('done');

    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this conversation' });
    await dialog.waitFor();

    // As a file: the conversation's events only, which decode.
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download file' }).click()]);
    const file = await readFile(await download.path(), 'utf8');
    const events = decodeLog(file).events;
    expect(events.some((e) => e.type === 'message.branched')).toBe(true);
    expect(events.some((e) => e.type.startsWith('preferences.'))).toBe(false);

    // As a link.
    await dialog.getByRole('button', { name: 'Publish link' }).click();
    const linkBox = dialog.getByLabel(/^Published link/);
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    expect(link).toMatch(/\/share\/[A-Za-z0-9_-]{22}$/);

    // Another browser, with no Parley data: read-only, the app's message view, branches navigable.
    const reader = await (await getStack().newContext()).newPage();
    const res = await reader.goto(link);
    expect(res?.status()).toBe(200);
    await reader.getByRole('heading', { level: 1 }).waitFor();
    await reader.getByText('A read-only copy shared from Parley.').waitFor();
    const shared = reader.locator('article[data-role="assistant"]');
    await expect.poll(() => shared.first().textContent(), { timeout: 30_000 }).toContain('Answer two.');
    expect(await reader.getByRole('textbox', { name: /message/i }).count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Message actions' }).count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Regenerate' }).count()).toBe(0);
    const nav = shared.first().getByRole('group', { name: 'Alternatives' });
    await expect.poll(() => nav.textContent()).toContain('2 / 2');
    await nav.getByRole('button', { name: 'Previous alternative' }).click();
    await expect.poll(() => shared.first().textContent()).toContain('Answer one.');
    expect(await nav.textContent()).toContain('1 / 2');
    // The shared text is shown, never run: no handler fired, no script ran, the javascript: link is no link.
    expect(await shared.first().textContent()).toContain('<script>');
    expect(await reader.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(await shared.first().locator('a[href^="javascript:"]').count()).toBe(0);
    // The reader got no engine and no session: nothing of Parley is stored in that browser.
    expect(await reader.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).not.toContain('parley');

    // The owner deletes it: the link answers 404 and says so.
    await dialog.getByRole('button', { name: 'Delete published link' }).click();
    await dialog.getByText('The published link was deleted.').waitFor();
    const gone = await reader.goto(link);
    expect(gone?.status()).toBe(404);
    await reader.getByText('This shared conversation does not exist, or its owner deleted it.').waitFor();
  });
});
