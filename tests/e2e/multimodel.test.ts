/**
 * Multi-model in Chromium: extras added and removed by name, one prompt answered by two models side by side (one
 * of them failing on its own), stacked on a phone; modes that are not built say so; address parameters.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, PAID_MODEL, assistant, chooseModel, modelPicker, openApp, send, user, useStack } from './stack';
import { goInApp } from './screens';

const getStack = useStack();
const OFFLINE = 'parley-offline';
const shots = process.env.PARLEY_E2E_SHOTS;

async function shoot(page: Page, name: string): Promise<void> {
  if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: false });
}

describe('multi-model', () => {
  it('is restored on reopen: the last turn\'s models in order, the first in the picker and the others as extras', async () => {
    getStack().upstream.setScript(textReply('From the fake model.'));
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, OFFLINE);
    await page.getByRole('button', { name: 'Add model' }).click();
    await page.getByRole('button', { name: `Remove ${FREE_MODEL}` }).waitFor();
    await send(page, 'Both of you please');
    await expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count(), { timeout: 60_000 }).toBe(2);
    // Once the first send has moved to the conversation's address, and again after a reload.
    for (const reopen of [false, true]) {
      if (reopen) await page.reload();
      await modelPicker(page).and(page.locator(`[data-value="${OFFLINE}"]`)).waitFor();
      await page.getByRole('button', { name: `Remove ${FREE_MODEL}` }).waitFor();
      expect(await page.getByRole('combobox', { name: /^Extra model/ }).count()).toBe(1);
    }
    // A conversation whose last turn had one model drops the extras when opened from there (no reload).
    const multi = new URL(page.url()).pathname;
    await goInApp(page, '/conversation/new');
    await page.getByRole('button', { name: `Remove ${FREE_MODEL}` }).click();
    await send(page, 'Just you');
    await page.waitForURL((u) => !u.pathname.endsWith('/new') && u.pathname !== multi);
    await page.locator('article[data-role="assistant"][data-status="done"]').first().waitFor({ timeout: 60_000 });
    const single = new URL(page.url()).pathname;
    await goInApp(page, multi);
    await page.getByRole('button', { name: `Remove ${FREE_MODEL}` }).waitFor();
    await goInApp(page, single);
    await expect.poll(() => page.getByRole('combobox', { name: /^Extra model/ }).count()).toBe(0);
    await modelPicker(page).and(page.locator(`[data-value="${OFFLINE}"]`)).waitFor();
  });

  it('answers with each model side by side; a failing model keeps its own error and the other finishes', async () => {
    // The upstream model refuses; the built-in offline model answers.
    getStack().upstream.setScript({ error: { status: 503, body: { error: { message: 'Overloaded', type: 'server_error' } } } });
    const context = await getStack().newContext();
    const page = await openApp(context);
    await page.setViewportSize({ width: 1366, height: 900 });
    await chooseModel(page, OFFLINE);
    await page.getByRole('button', { name: 'Add model' }).click();
    const remove = page.getByRole('button', { name: `Remove ${FREE_MODEL}` });
    await remove.waitFor();
    // Only text models that are not chosen yet can be added; with no balance the free ones come first.
    await page.getByRole('button', { name: 'Add model' }).click();
    await page.getByRole('button', { name: 'Remove Parley Offline Image Chat (built-in, no AI)' }).click();
    expect(await page.getByRole('combobox', { name: /^Extra model/ }).count()).toBe(1);

    await send(page, 'Compare yourselves');
    const offline = page.locator(`article[data-role="assistant"][data-model="${OFFLINE}"]`);
    const failing = page.locator(`article[data-role="assistant"][data-model="${FREE_MODEL}"]`);
    await failing.and(page.locator('[data-status="error"]')).waitFor({ timeout: 60_000 });
    await offline.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
    expect(await failing.textContent()).toContain('Overloaded');
    expect(await user(page).first().getAttribute('data-status')).toBe('done');
    const group = page.getByRole('group', { name: 'Replies from 2 models' });
    await group.waitFor();
    // Side by side on a wide screen.
    await expect.poll(async () => {
      const [a, b] = [await offline.boundingBox(), await failing.boundingBox()];
      return a && b ? Math.abs(a.y - b.y) < 4 && a.x !== b.x : false;
    }).toBe(true);
    await shoot(page, 'multimodel-1366');

    // On a phone: still side by side, in a strip that scrolls sideways (one column nearly the screen's width).
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(async () => {
      const [p, q] = [await offline.boundingBox(), await failing.boundingBox()];
      return p && q ? Math.abs(p.y - q.y) < 4 && p.x !== q.x : false;
    }).toBe(true);
    expect(await group.evaluate((el) => el.scrollWidth > el.clientWidth + 100 && getComputedStyle(el).overflowX === 'auto')).toBe(true);
    expect(await page.evaluate(() => (document.scrollingElement?.scrollWidth ?? 0) <= window.innerWidth)).toBe(true);
    await shoot(page, 'multimodel-390');

    // Multi-model stays on for the next prompt; removing the extra ends it.
    await remove.click();
    getStack().upstream.setScript(textReply('single'));
    await send(page, 'Only you now');
    await expect.poll(() => assistant(page).count(), { timeout: 60_000 }).toBe(3);
  });

  it('Add model with no balance adds free models first, and says at once when only a paid one is left', async () => {
    const page = await openApp(await getStack().newContext());
    await chooseModel(page, FREE_MODEL);
    const notices = page.getByRole('region', { name: 'Notifications' });
    for (let i = 0; i < 2; i++) await page.getByRole('button', { name: 'Add model' }).click();
    const extras = () => page.getByRole('combobox', { name: /^Extra model/ }).evaluateAll((es) => es.map((e) => e.getAttribute('data-value')));
    expect(await extras()).toEqual([OFFLINE, 'parley-offline-image-chat']);
    expect(await notices.getByText('Insufficient balance', { exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Add model' }).click();
    expect(await extras()).toEqual([OFFLINE, 'parley-offline-image-chat', PAID_MODEL]);
    await notices.getByText(`${PAID_MODEL} is a paid model. Add funds to your balance and try again.`).waitFor();
    expect(await notices.getByRole('button', { name: 'Go to wallet' }).count()).toBe(1);
    await shoot(page, 'add-paid-model-1366');
  });

  it('a paid extra the balance cannot pay for: its 402 notice names the amount, the free model answers', async () => {
    getStack().upstream.setScript(textReply('Free answer.'));
    const page = await openApp(await getStack().newContext());
    // A balance above the paid-use threshold, far below what the paid model's request holds.
    const id = await page.evaluate(async () => ((await (await fetch('/auth/local-session')).json()) as { data: { id: string } }).data.id);
    await getStack().gateway.ledger.credit(id, { key: `fund:${id}`, usdMicro: 50n });
    await page.reload();
    await page.getByRole('region', { name: 'Balance', exact: true }).getByText('$0.00005', { exact: true }).waitFor();
    await chooseModel(page, FREE_MODEL);
    await page.getByRole('button', { name: 'Add model' }).click();
    await page.getByRole('combobox', { name: 'Extra model 1' }).and(page.locator(`[data-value="${PAID_MODEL}"]`)).waitFor();
    await send(page, 'Both of you');
    const notices = page.getByRole('region', { name: 'Notifications' });
    await notices.getByText(/^This request needs a balance of \$\d+\.\d+\. A paid reply holds the cost of the longest reply it could write, and returns the unused part when it ends\. Add funds to your balance and try again\.$/).waitFor({ timeout: 60_000 });
    await page.locator(`article[data-role="assistant"][data-model="${FREE_MODEL}"][data-status="done"]`).waitFor({ timeout: 60_000 });
    await page.locator(`article[data-role="assistant"][data-model="${PAID_MODEL}"][data-status="error"]`).waitFor();
  });

  it('every mode of the Mode group is built: the address picks one, and each shows its own controls, never "not available yet"', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context, '/conversation/new?mode=audio');
    const mode = page.getByRole('radiogroup', { name: 'Mode' });
    for (const name of ['Chat', 'Image', 'Video', 'Audio', 'Voice']) await mode.getByRole('radio', { name }).waitFor({ state: 'attached' });
    expect(await mode.getByRole('radio', { name: 'Audio' }).isChecked()).toBe(true);
    const area = page.locator('.composer-area');
    const panels: [string, string][] = [
      ['Image', '[role="group"][aria-label="Image settings"]'],
      ['Video', '[role="group"][aria-label="Video settings"]'],
      ['Audio', '[role="group"][aria-label="Audio settings"]'],
      // Voice: the loop, or (no transcription here and no browser recognition) its plain reason.
      ['Voice', '[role="group"][aria-label="Voice conversation"], .voice-unavailable'],
    ];
    for (const [name, panel] of panels) {
      await mode.getByRole('radio', { name }).check();
      await area.locator(panel).first().waitFor();
      expect(await area.getByText('not available yet', { exact: false }).count()).toBe(0);
      // Web search feeds a text reply: offered in Voice (and Chat), not in the media modes that would ignore it.
      expect(await area.getByRole('switch', { name: 'Web search' }).count()).toBe(name === 'Voice' ? 1 : 0);
      expect(await area.getByRole('button', { name: 'Add model' }).count()).toBe(0);
    }
    await mode.getByRole('radio', { name: 'Chat' }).check();
    await expect.poll(() => area.locator('.audio-controls, .media-controls, .voice-mode, .voice-unavailable').count()).toBe(0);
    expect(await area.getByRole('switch', { name: 'Web search' }).count()).toBe(1);
    expect(await area.getByRole('button', { name: 'Add model' }).count()).toBe(1);
  });

  it('reads the address: an unknown model falls back with a notice, online keeps web search off with its reason, transcriptId fills the prompt', async () => {
    const context = await getStack().newContext();
    const setup = await openApp(context);
    await setup.evaluate(() => sessionStorage.setItem('t-1', 'Transcribed words'));
    await setup.goto('/conversation/new?model=no-such-model&online=true&transcriptId=t-1');
    await setup.getByRole('region', { name: 'Notifications' }).getByText('Unknown model: no-such-model').waitFor();
    expect(await setup.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Transcribed words');
    expect(await setup.evaluate(() => sessionStorage.getItem('t-1'))).toBeNull();
    const search = setup.getByRole('switch', { name: 'Web search' });
    expect(await search.isDisabled()).toBe(true);
    expect(await search.getAttribute('aria-checked')).toBe('false');
    await setup.getByText('Web search is not available: no search provider is configured.').first().waitFor({ state: 'attached' });
    // A known model in the address is chosen.
    await setup.goto(`/conversation/new?model=${OFFLINE}`);
    await setup.getByRole('combobox', { name: 'Model', exact: true }).and(setup.locator(`[data-value="${OFFLINE}"]`)).waitFor();
    await chooseModel(setup, FREE_MODEL);
  });
});
