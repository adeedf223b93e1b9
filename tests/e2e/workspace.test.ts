/**
 * The conversation workspace in Chromium, the details users reach for (issue 6): the last message's model gone from
 * the catalogue, instructions saved by their debounce alone, Copy text, the conversation's total cost, and the model
 * picker's facts and its Hide control.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, PAID_MODEL, assistant, chooseModel, modelPicker, openApp, send, useStack, waitForModels } from './stack';
import { formatUsd } from '../../src/protocol/money-format';

const getStack = useStack();

describe('workspace details', () => {
  it("reopening a conversation whose last message's model left the catalogue falls back to the default text model", async () => {
    const context = await getStack().newContext({ withoutSharedWorker: true });
    const page = await openApp(context);
    const defaultModel = ((await (await context.request.get('/api/models')).json()) as { defaultModel: string }).defaultModel;
    expect(defaultModel).toBe(FREE_MODEL);
    await chooseModel(page, 'parley-offline');
    await send(page, 'Remember this model');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const path = new URL(page.url()).pathname;
    // Still in the catalogue: the last message's model is restored on load.
    await page.goto('/conversation/new');
    await waitForModels(page);
    await chooseModel(page, FREE_MODEL);
    await page.goto(path);
    await expect.poll(() => modelPicker(page).getAttribute('data-value')).toBe('parley-offline');
    // The catalogue no longer lists it: the default text model.
    await context.route('**/api/models', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { models: { id: string }[]; defaultModel: string };
      await route.fulfill({ response: res, json: { ...body, models: body.models.filter((m) => m.id !== 'parley-offline') } });
    });
    await page.close();
    // A fresh engine reads the smaller catalogue; this tab had another model chosen before it opens the conversation.
    const again = await context.newPage();
    await again.goto('/conversation/new');
    await waitForModels(again);
    await chooseModel(again, PAID_MODEL);
    await again.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Remember this model' }).click();
    await expect.poll(() => new URL(again.url()).pathname).toBe(path);
    await assistant(again).first().waitFor();
    await expect.poll(() => modelPicker(again).getAttribute('data-value')).toBe(defaultModel);
    await again.waitForTimeout(300);
    expect(await modelPicker(again).getAttribute('data-value')).toBe(defaultModel);
  });

  it('instructions typed without pressing Done are saved 400 ms later and survive a reload', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(textReply('Noted.'));
    await send(page, 'Start');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await page.getByRole('button', { name: 'Instructions' }).click();
    const dialog = page.getByRole('dialog', { name: 'System prompt' });
    const text = dialog.getByRole('textbox', { name: 'Instructions for this conversation' });
    await text.fill('Always answer like a pirate.');
    // No Done, no close: the debounced save alone, then the page goes.
    await page.waitForTimeout(1200);
    await page.reload();
    await assistant(page).first().waitFor();
    await page.getByRole('button', { name: 'Instructions' }).click();
    await expect.poll(() => page.getByRole('dialog', { name: 'System prompt' }).getByRole('textbox', { name: 'Instructions for this conversation' }).inputValue()).toBe('Always answer like a pirate.');
    await page.getByRole('dialog', { name: 'System prompt' }).getByRole('button', { name: 'Done' }).click();
    const before = getStack().upstream.requests.length;
    await send(page, 'Hello');
    await expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count()).toBe(2);
    const sent = getStack().upstream.requests.slice(before).find((r) => r.body !== null)?.body;
    expect(sent?.messages?.[0]).toEqual({ role: 'system', content: 'Always answer like a pirate.' });
  });

  it('"Copy text" puts the message text on the clipboard', async () => {
    const context = await getStack().newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: getStack().url });
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    getStack().upstream.setScript(textReply('Copy **exactly** this.'));
    await send(page, 'Say something');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await page.evaluate(() => navigator.clipboard.writeText('something else'));
    await assistant(page).first().getByRole('button', { name: 'Copy text', exact: true }).click();
    await assistant(page).first().getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Copy **exactly** this.');
  });

  it("the conversation's total cost in the header; the picker shows each model's context length and capabilities", async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    const session = ((await (await context.request.get('/auth/local-session')).json()) as { data: { id: string } }).data.id;
    await getStack().gateway.ledger.credit(session, { key: `e2e-cost-${session}`, usdMicro: 5_000_000n });
    await chooseModel(page, PAID_MODEL);
    const header = page.locator('.conversation-header');
    getStack().upstream.setScript(textReply('Paid one.', { usage: { prompt_tokens: 1000, completion_tokens: 2000 } }));
    await send(page, 'First paid question');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await send(page, 'Second paid question');
    await expect.poll(() => page.locator('article[data-role="assistant"][data-status="done"]').count()).toBe(2);
    // Each reply's cost, and the header's total is their sum.
    // The full 6-decimal cost is each line's tooltip; the line and the total show cents (issue 16 item 7).
    const costs = await assistant(page).getByLabel('Reply details').evaluateAll((ps) => ps.map((p) => p.getAttribute('title') ?? ''));
    const micro = costs.map((c) => Math.round(Number(/^Cost \$(\d+\.\d{6})$/.exec(c)?.[1]) * 1e6));
    expect(micro.every((m) => m > 0)).toBe(true);
    const total = `Total ${formatUsd(((micro[0] ?? 0) + (micro[1] ?? 0)) / 1e6)}`;
    await expect.poll(() => header.locator('.conversation-cost').first().textContent()).toBe(total);

    await modelPicker(page).click();
    const list = page.getByRole('listbox', { name: 'Model' });
    const fake = list.getByRole('option').and(page.locator(`[data-value="${FREE_MODEL}"]`));
    expect(await fake.locator('.model-option-facts span').allTextContents()).toEqual(['32K context']);
    const offline = list.getByRole('option').and(page.locator('[data-value="parley-offline"]'));
    expect(await offline.locator('.model-option-facts span').allTextContents()).toEqual(['128K context', 'Reasoning, Math']);
    const paid = list.getByRole('option').and(page.locator(`[data-value="${PAID_MODEL}"]`));
    expect(await paid.locator('.model-option-facts span').allTextContents()).toEqual(['$1 / $2 per 1M tokens', '32K context']);
    // With a balance, no paid model is marked.
    expect(await list.locator('.badge-locked').count()).toBe(0);
  });

  it('at a $0 balance the picker marks paid models "Needs balance", and capabilities read in plain words (issue 16 items 4 and 6)', async () => {
    const page = await openApp(await getStack().newContext());
    await chooseModel(page, FREE_MODEL);
    await modelPicker(page).click();
    const list = page.getByRole('listbox', { name: 'Model' });
    const paid = list.getByRole('option', { name: /Needs balance/ }).and(page.locator(`[data-value="${PAID_MODEL}"]`));
    await paid.waitFor();
    expect(await list.getByRole('option').and(page.locator(`[data-value="${FREE_MODEL}"]`)).getByText('Needs balance').count()).toBe(0);
    const offline = list.getByRole('option').and(page.locator('[data-value="parley-offline"]'));
    expect(await offline.locator('.model-option-facts').textContent()).not.toMatch(/streaming|markdown/i);
    // The filter chips too: plain words, and none for what every chat model does.
    const chips = await page.locator('.model-filters .model-category').allTextContents();
    expect(chips).toEqual(expect.arrayContaining(['Free', 'Makes images', 'Reasoning']));
    expect(chips.filter((c) => /^(Chat|Streaming|Markdown|Image-lines)$/.test(c))).toEqual([]);
    await page.keyboard.press('Escape');
    // The chosen paid model carries the mark on the picker button too.
    await chooseModel(page, PAID_MODEL);
    await modelPicker(page).getByText('Needs balance').waitFor();
  });

  it('"Hide {model}" takes a model out of the picker (visibleModels); "Show all models" brings it back', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    await chooseModel(page, PAID_MODEL);
    await modelPicker(page).click();
    const options = () => page.getByRole('listbox', { name: 'Model' }).getByRole('option').evaluateAll((os) => os.map((o) => o.getAttribute('data-value')));
    expect(await options()).toContain(FREE_MODEL);
    await page.getByRole('button', { name: `Hide ${FREE_MODEL}` }).first().click();
    await expect.poll(options).not.toContain(FREE_MODEL);
    expect(await options()).toContain(PAID_MODEL);
    const visible = JSON.parse((await page.evaluate(() => localStorage.getItem('visibleModels'))) ?? 'null') as string[];
    expect(visible).not.toContain(FREE_MODEL);
    expect(visible).toContain(PAID_MODEL);
    // The chosen model cannot leave the list by hiding: it stays shown.
    await page.getByRole('button', { name: `Hide ${PAID_MODEL}` }).first().click();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('visibleModels'))).not.toContain(PAID_MODEL);
    expect(await options()).toContain(PAID_MODEL);
    // Closed and opened again: still hidden.
    await page.keyboard.press('Escape');
    await modelPicker(page).click();
    expect(await options()).not.toContain(FREE_MODEL);
    await page.getByRole('button', { name: /^Show all models \(\d+ hidden\)$/ }).click();
    await expect.poll(options).toContain(FREE_MODEL);
    expect(await page.evaluate(() => localStorage.getItem('visibleModels'))).toBeNull();
  });
});
