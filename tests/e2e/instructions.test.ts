/**
 * Instructions before the first message, default instructions in Settings, and the composer's Study Mode chip
 * (issue 16).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, chooseModel, openApp, send, useStack, waitForModels } from './stack';

const getStack = useStack();
const PHONE = { width: 390, height: 844 };

const studyChip = (page: Page) => page.getByRole('button', { name: 'Study Mode', exact: true });
const done = (page: Page, n: number) => expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count(), { timeout: 30_000 }).toBe(n);

/** The system message of the first chat request the fake model received after `before` requests. */
function systemSent(before: number): unknown {
  return getStack().upstream.requests.slice(before).find((r) => r.body !== null)?.body?.messages?.[0];
}

describe('instructions', () => {
  it('a new conversation takes instructions before its first message; they go with it and stay after a reload', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    // Usable before any message: the dialog opens on the new conversation.
    const button = page.getByRole('button', { name: 'Instructions' });
    expect(await button.isEnabled()).toBe(true);
    await button.click();
    const dialog = page.getByRole('dialog', { name: 'System prompt' });
    const text = dialog.getByRole('textbox', { name: 'Instructions for the new conversation' });
    expect(await text.inputValue()).toContain('Markdown only'); // 'Standard' to begin with
    await text.fill('You are {{modelName}}. Answer like a pirate.');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);

    getStack().upstream.setScript(textReply('Arr, a half be one of two.'));
    const before = getStack().upstream.requests.length;
    await send(page, 'What is a half?');
    await done(page, 1);
    expect(systemSent(before)).toEqual({ role: 'system', content: 'You are fake-model. Answer like a pirate.' });
    await expect.poll(() => new URL(page.url()).pathname).not.toBe('/conversation/new');

    // Stored with the conversation: after a reload its dialog shows them; the next new conversation starts afresh.
    await page.reload();
    await waitForModels(page);
    await page.getByRole('button', { name: 'Instructions' }).click();
    expect(await dialog.getByRole('textbox', { name: 'Instructions for this conversation' }).inputValue()).toBe('You are {{modelName}}. Answer like a pirate.');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: '+ New chat' }).click();
    await page.getByRole('button', { name: 'Instructions' }).click();
    expect(await dialog.getByRole('textbox', { name: 'Instructions for the new conversation' }).inputValue()).toContain('Markdown only');
  });

  it('default instructions set in Settings start every new conversation; one conversation can change its own', async () => {
    const context = await getStack().newContext();
    const page = await context.newPage();
    await page.goto('/settings/chat');
    const field = page.getByRole('textbox', { name: 'Default instructions' });
    await field.fill('Reply in French, {{modelName}}.');
    await field.blur();
    await page.getByRole('link', { name: '+ New chat' }).click();
    await waitForModels(page);
    await chooseModel(page, FREE_MODEL);
    await page.getByRole('button', { name: 'Instructions' }).click();
    const dialog = page.getByRole('dialog', { name: 'System prompt' });
    expect(await dialog.getByRole('textbox', { name: 'Instructions for the new conversation' }).inputValue()).toBe('Reply in French, {{modelName}}.');
    await dialog.getByRole('button', { name: 'Done' }).click();

    getStack().upstream.setScript(textReply('Bonjour.'));
    const before = getStack().upstream.requests.length;
    await send(page, 'Hello');
    await done(page, 1);
    expect(systemSent(before)).toEqual({ role: 'system', content: 'Reply in French, fake-model.' });

    // Changed for this conversation only: the next message uses its own; the default stays in Settings.
    await page.getByRole('button', { name: 'Instructions' }).click();
    await dialog.getByRole('textbox', { name: 'Instructions for this conversation' }).fill('Reply in German.');
    await dialog.getByRole('button', { name: 'Done' }).click();
    const next = getStack().upstream.requests.length;
    await send(page, 'Hello again');
    await done(page, 2);
    expect(systemSent(next)).toEqual({ role: 'system', content: 'Reply in German.' });
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Chat' }).click();
    expect(await page.getByRole('textbox', { name: 'Default instructions' }).inputValue()).toBe('Reply in French, {{modelName}}.');
  });

  it('Study Mode is a pressed chip in the composer while on, on a new conversation and after; on a phone it fits and shows while on', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize(PHONE);
    await chooseModel(page, FREE_MODEL);
    const chip = studyChip(page);
    const more = page.getByRole('button', { name: 'More tools' });
    // Off: behind "More tools" on a phone.
    expect(await chip.isVisible()).toBe(false);
    await more.click();
    expect(await chip.getAttribute('aria-pressed')).toBe('false');
    await chip.click();
    // On: in the row, seen without opening anything, whole inside the screen, and the focus stays on it.
    await expect.poll(() => chip.getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('Escape');
    await expect.poll(() => chip.isVisible()).toBe(true);
    const b = await chip.boundingBox();
    if (!b) throw new Error('no box');
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.x + b.width).toBeLessThanOrEqual(PHONE.width);

    getStack().upstream.setScript(textReply('What do you already know about halves?'));
    const before = getStack().upstream.requests.length;
    await send(page, 'What is a half?');
    await done(page, 1);
    const system = systemSent(before) as { content: string };
    expect(system.content).toContain('guiding questions');
    expect(system.content).toContain('You are fake-model, a patient tutor.');
    // The conversation keeps it: still pressed after the first message and a reload; off gives back 'Standard'.
    await page.reload();
    await waitForModels(page);
    await expect.poll(() => studyChip(page).getAttribute('aria-pressed')).toBe('true');
    await studyChip(page).click();
    await expect.poll(() => studyChip(page).isVisible()).toBe(false);
    await more.click();
    await expect.poll(() => studyChip(page).getAttribute('aria-pressed')).toBe('false');
    const next = getStack().upstream.requests.length;
    await page.keyboard.press('Escape');
    await send(page, 'Just tell me');
    await done(page, 2);
    expect((systemSent(next) as { content: string }).content).toContain('Markdown only');
  });

  it('on a wide screen the Study Mode chip sits in the tools row and keeps the keyboard focus when toggled', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize({ width: 1366, height: 850 });
    const chip = studyChip(page);
    await chip.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => chip.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => chip.evaluate((el) => el === document.activeElement)).toBe(true);
    // The dialog agrees: the Study Mode preset is chosen for the new conversation.
    await page.getByRole('button', { name: 'Instructions' }).click();
    const dialog = page.getByRole('dialog', { name: 'System prompt' });
    expect(await dialog.getByRole('combobox', { name: 'Preset' }).inputValue()).toBe('-1');
    await dialog.getByRole('combobox', { name: 'Preset' }).selectOption({ label: 'Standard' });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => chip.getAttribute('aria-pressed')).toBe('false');
  });
});
