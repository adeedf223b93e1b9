/**
 * The Auto model in Chromium (spec 000 section 3, isAutoModel and autoModelSelectedModel): chosen in the picker, a
 * prompt is answered by the model the engine picked (at a $0 balance the free upstream model), the reply is headed
 * "Auto · <model name>", and reopening the conversation restores Auto in the picker.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, modelPicker, openApp, send, useStack } from './stack';

const getStack = useStack();

describe('Auto model', () => {
  it('is chosen in the picker; the reply names the model it picked, and Auto stays chosen on reopen', async () => {
    getStack().upstream.setScript(textReply('Picked for you.'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await modelPicker(page).click();
    const option = page.getByRole('option', { name: /^Auto/ });
    expect(await option.textContent()).toContain('Picks the cheapest model that can answer each message');
    await option.click();
    await modelPicker(page).and(page.locator('[data-value="auto"]')).waitFor();
    expect(await modelPicker(page).textContent()).toContain('Auto');

    await send(page, 'Hello, whoever you are');
    const reply = page.locator(`article[data-role="assistant"][data-status="done"][data-model="${FREE_MODEL}"]`);
    await reply.waitFor({ timeout: 30_000 });
    expect(await reply.locator('.message-author').textContent()).toBe(`Auto · ${FREE_MODEL}`);
    expect(await reply.textContent()).toContain('Picked for you.');

    await page.waitForURL(/\/conversation\/(?!new)/);
    await page.reload();
    await modelPicker(page).and(page.locator('[data-value="auto"]')).waitFor({ timeout: 30_000 });
    expect(await page.locator('article[data-role="assistant"] .message-author').textContent()).toBe(`Auto · ${FREE_MODEL}`);
    await context.close();
  });

  it('is offered as the default model in Settings > Chat; a new conversation then starts with Auto and its reply says so', async () => {
    getStack().upstream.setScript(textReply('Auto by default.'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.goto('/settings/chat');
    const picker = page.getByRole('combobox', { name: 'Default model' });
    await picker.click();
    const option = page.getByRole('option', { name: /^Auto/ });
    expect(await option.textContent()).toContain('Picks the cheapest model that can answer each message');
    await option.click();
    await expect.poll(() => picker.getAttribute('data-value'), { timeout: 30_000 }).toBe('auto');
    expect(await picker.textContent()).toContain('Auto');

    await page.goto('/conversation/new');
    await expect.poll(() => modelPicker(page).getAttribute('data-value'), { timeout: 30_000 }).toBe('auto');
    await send(page, 'Who answers by default?');
    const reply = page.locator(`article[data-role="assistant"][data-status="done"][data-model="${FREE_MODEL}"]`);
    await reply.waitFor({ timeout: 30_000 });
    expect(await reply.locator('.message-author').textContent()).toBe(`Auto · ${FREE_MODEL}`);
    await context.close();
  });

  it('is chosen by the address (?model=auto) in a new browser', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context, '/conversation/new?model=auto');
    await modelPicker(page).and(page.locator('[data-value="auto"]')).waitFor({ timeout: 30_000 });
    expect(await page.getByText('Unknown model: auto').count()).toBe(0);
    await context.close();
  });
});
