/**
 * Interface preferences in the browser (spec 001 sections 3, 5 and 9): each survives a reload and reaches a second
 * tab, and does what its name says (sidebar, message menu, conversation width, the composer's size and its window
 * clamps, resizing by drag); the model picker's lists live in local storage under the spec's keys.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { assistant, chooseModel, FREE_MODEL, modelPicker, openApp, send, useStack } from './stack';

const getStack = useStack();
const input = (page: Page) => page.getByRole('textbox', { name: 'Message' });
const height = async (page: Page) => Math.round((await input(page).boundingBox())?.height ?? 0);

/** The Settings page of a context (it has no "Model" picker to wait for). */
async function openSettings(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto('/settings/layout');
  await page.getByRole('switch', { name: 'Show sidebar' }).waitFor();
  return page;
}

async function setPixels(page: Page, label: string, value: number): Promise<void> {
  const field = page.getByRole('spinbutton', { name: label });
  await field.fill(String(value));
  await field.press('Enter');
}

describe('interface preferences', () => {
  it('a preference survives a reload and reaches a second tab (Show sidebar)', async () => {
    const context = await getStack().newContext();
    const settings = await openSettings(context);
    const chat = await openApp(context);
    await settings.getByRole('switch', { name: 'Show sidebar' }).uncheck();
    await chat.getByRole('button', { name: 'Show sidebar' }).waitFor();
    expect(await chat.getByRole('navigation', { name: 'Conversations' }).isVisible()).toBe(false);
    await settings.reload();
    await settings.getByRole('button', { name: 'Show sidebar' }).waitFor();
    expect(await settings.getByRole('navigation', { name: 'Conversations' }).isVisible()).toBe(false);
    await expect.poll(() => settings.getByRole('switch', { name: 'Show sidebar' }).isChecked()).toBe(false);
    await chat.getByRole('button', { name: 'Show sidebar' }).click();
    await chat.getByRole('navigation', { name: 'Conversations' }).waitFor();
    await expect.poll(() => settings.getByRole('switch', { name: 'Show sidebar' }).isChecked()).toBe(true);
  });

  it('input height and width: defaults 40 and 750, set values applied within the window clamps; drag to resize', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize({ width: 1366, height: 850 });
    const handle = page.getByRole('separator', { name: 'Resize message input height' });
    expect(await handle.getAttribute('aria-valuenow')).toBe('40');
    expect(await height(page)).toBeLessThanOrEqual(42);
    const area = page.locator('.composer-area');
    expect(Math.round((await area.boundingBox())?.width ?? 0)).toBe(750);

    const settings = await openSettings(context);
    await setPixels(settings, 'Message input height', 300);
    await setPixels(settings, 'Message input width', 2000);
    await expect.poll(() => height(page)).toBe(300);
    // Width: max(600, 1366 - 280) = 1086.
    await expect.poll(async () => Math.round((await area.boundingBox())?.width ?? 0)).toBe(1086);
    // Height 800 is stored, but the window allows min(max(200, 75% of 850), 800) = 638.
    await setPixels(settings, 'Message input height', 800);
    await expect.poll(() => height(page)).toBe(638);
    // A short window: max(200, 75% of 400) = 300; a narrow one: width at most max(600, ...) = 600.
    await page.setViewportSize({ width: 700, height: 400 });
    await expect.poll(() => height(page)).toBe(300);
    await page.setViewportSize({ width: 1366, height: 850 });
    await expect.poll(() => height(page)).toBe(638);
    // Out of bounds in Settings: refused, explained, not saved.
    await setPixels(settings, 'Message input height', 20);
    expect(await settings.getByText('Enter a whole number from 40 to 800.').count()).toBe(1);

    // Dragging the bar above the input: up makes it taller; saved once, when the drag ends.
    await setPixels(settings, 'Message input height', 100);
    await expect.poll(() => height(page)).toBe(100);
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 60, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => height(page)).toBe(160);
    await settings.reload();
    await expect.poll(() => settings.getByRole('spinbutton', { name: 'Message input height' }).inputValue()).toBe('160');
  });

  it('message menu, conversation width and example prompts follow their settings', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Hello');
    await assistant(page).first().and(page.locator('[data-status="done"]')).waitFor();
    const menu = assistant(page).first().getByRole('button', { name: 'Message actions' });
    expect(await menu.isVisible()).toBe(true);
    const settings = await openSettings(context);
    await settings.getByRole('switch', { name: 'Message actions menu' }).uncheck();
    await expect.poll(() => menu.isVisible()).toBe(false);
    await setPixels(settings, 'Conversation width', 600);
    await expect.poll(async () => Math.round((await page.locator('.messages-inner').boundingBox())?.width ?? 0)).toBe(600);
    await page.getByRole('link', { name: '+ New chat' }).click();
    await page.getByRole('region', { name: 'Suggestions' }).waitFor();
    await settings.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'General' }).click();
    await settings.getByRole('switch', { name: 'Show example prompts' }).uncheck();
    await page.getByRole('region', { name: 'Suggestions' }).waitFor({ state: 'detached' });
    expect(await page.getByRole('heading', { name: 'What shall we talk about?' }).count()).toBe(1);
  });

  it('the model picker keeps pinned and recent models in local storage (pinnedModels, recentlyUsedModels)', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, 'fake-paid');
    await modelPicker(page).click();
    await page.getByRole('button', { name: 'Pin fake-model' }).click();
    const groups = await page.getByRole('listbox', { name: 'Model' }).getByRole('group').evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-labelledby') && document.getElementById(g.getAttribute('aria-labelledby')!)?.textContent));
    expect(groups.slice(0, 2)).toEqual(['Pinned', 'Recently used']);
    await page.keyboard.press('Escape');
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('pinnedModels'))) ?? 'null')).toEqual(['fake-model']);
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('recentlyUsedModels'))) ?? 'null')).toEqual(['fake-paid']);
    // Open source only (the built-in offline model, open-weight families): fake-model goes; the chosen model stays.
    await modelPicker(page).click();
    await page.getByRole('checkbox', { name: 'Open source only' }).check();
    expect(await page.evaluate(() => localStorage.getItem('showOpenSourceOnly'))).toBe('true');
    const options = await page.getByRole('option').evaluateAll((os) => os.map((o) => o.getAttribute('data-value')));
    expect(options).not.toContain('fake-model');
    expect(options).toContain('fake-paid');
    expect(options.some((id) => id?.startsWith('parley-'))).toBe(true);
  });
});
