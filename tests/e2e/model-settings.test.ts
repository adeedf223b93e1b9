/**
 * "Model settings" in Chromium (spec 000 section 7): the temperature set in a model's panel reaches the stub
 * upstream with the next prompt, stays for the next visit, and Reset to defaults stops sending it; the panel of a
 * multi-model column sets that model's own value.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { OFFLINE_MODEL_NAME } from '../../src/server/providers/offline';
import { FREE_MODEL, assistant, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();
const OFFLINE = 'parley-offline';

describe('model settings', () => {
  it('the temperature set in the panel reaches the upstream; it is kept, and Reset to defaults stops sending it', async () => {
    const stack = getStack();
    stack.upstream.setScript(textReply('Warm reply.'));
    const context = await stack.newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await page.getByRole('button', { name: `Model settings: ${FREE_MODEL}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Model settings' });
    await dialog.getByRole('spinbutton', { name: 'Temperature' }).fill('0.7');
    await dialog.getByRole('spinbutton', { name: 'Top P' }).fill('0.9');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });

    stack.upstream.requests.length = 0;
    await send(page, 'Set the temperature');
    await expect.poll(() => assistant(page).last().getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    const asked = stack.upstream.requests.find((r) => r.path.endsWith('/chat/completions'))?.body;
    expect(asked).toMatchObject({ model: FREE_MODEL, temperature: 0.7, top_p: 0.9 });

    // Kept in the engine: the panel shows it after a reload, and Reset clears it.
    await page.reload();
    await page.getByRole('button', { name: `Model settings: ${FREE_MODEL}` }).click();
    await expect.poll(() => dialog.getByRole('spinbutton', { name: 'Temperature' }).inputValue(), { timeout: 60_000 }).toBe('0.7');
    await dialog.getByRole('button', { name: 'Reset to defaults' }).click();
    await expect.poll(() => dialog.getByRole('spinbutton', { name: 'Temperature' }).inputValue(), { timeout: 60_000 }).toBe('');
    await dialog.getByRole('button', { name: 'Done' }).click();
    stack.upstream.requests.length = 0;
    await send(page, 'Back to defaults');
    await expect.poll(() => assistant(page).count(), { timeout: 60_000 }).toBe(2);
    await expect.poll(() => assistant(page).last().getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
    const plain = stack.upstream.requests.find((r) => r.path.endsWith('/chat/completions'))?.body ?? {};
    expect(plain).not.toHaveProperty('temperature');
    expect(plain).not.toHaveProperty('top_p');
  });

  it("a multi-model column's header opens that model's panel; the offline model offers only Max tokens", async () => {
    const stack = getStack();
    stack.upstream.setScript(textReply('Column reply.'));
    const context = await stack.newContext();
    const page = await openApp(context);
    await chooseModel(page, OFFLINE);
    await page.getByRole('button', { name: 'Add model' }).click();
    await page.getByRole('button', { name: `Remove ${FREE_MODEL}` }).waitFor();
    await send(page, 'Both columns');
    await expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count(), { timeout: 60_000 }).toBe(2);

    const columns = page.locator('.multi-reply');
    await columns.getByRole('button', { name: `Model settings: ${OFFLINE_MODEL_NAME}` }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Model settings' });
    await dialog.getByRole('spinbutton', { name: 'Max tokens' }).waitFor();
    expect(await dialog.getByRole('spinbutton', { name: 'Temperature' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Done' }).click();

    await columns.getByRole('button', { name: `Model settings: ${FREE_MODEL}` }).first().click();
    await dialog.getByRole('spinbutton', { name: 'Temperature' }).fill('1.3');
    await dialog.getByRole('button', { name: 'Done' }).click();
    stack.upstream.requests.length = 0;
    await send(page, 'Again both');
    await expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count(), { timeout: 60_000 }).toBe(4);
    expect(stack.upstream.requests.find((r) => r.path.endsWith('/chat/completions'))?.body).toMatchObject({ model: FREE_MODEL, temperature: 1.3 });
  });
});
