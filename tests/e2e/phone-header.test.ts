/**
 * The conversation header on a phone (issue 16, item 2) with a long, id-like model name: one row, the title keeps
 * room to be read, and the picker shows the part of the name that tells models apart ("llama-3.3-70b-..."), the
 * publisher ("meta-llama/") out of sight but still in what a screen reader says.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { chooseModel, modelPicker, openApp, send, useStack } from './stack';

const LONG = 'meta-llama/llama-3.3-70b-instruct-turbo';
const getStack = useStack(() => ({ env: { PARLEY_UPSTREAM_MODELS: `fake-model,${LONG}`, PARLEY_UPSTREAM_PRICING: '{}' } }));

describe('the phone header', () => {
  it('keeps one row with a long model name: the title at least 30% of the row, the publisher out of sight', async () => {
    const page = await openApp(await getStack().newContext());
    await page.setViewportSize({ width: 390, height: 844 });
    await chooseModel(page, LONG);
    getStack().upstream.setScript(textReply('A reply.'));
    await send(page, 'Tell me about the long history of the Roman empire in three lines');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();

    const header = await page.locator('.conversation-header').boundingBox();
    const title = await page.getByRole('heading', { level: 1 }).boundingBox();
    const picker = modelPicker(page);
    const shown = await picker.boundingBox();
    if (!header || !title || !shown) throw new Error('the header is not shown');
    expect(header.height).toBeLessThan(60);
    expect(Math.abs(title.y + title.height / 2 - (shown.y + shown.height / 2))).toBeLessThan(6);
    expect(title.width).toBeGreaterThanOrEqual(header.width * 0.3);
    // What the eye sees starts with the model's own name; what is read out is the whole name.
    const publisher = picker.locator('.model-publisher');
    expect(await publisher.textContent()).toBe('meta-llama/');
    expect((await publisher.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
    expect(await picker.evaluate((b) => b.getAttribute('aria-describedby') && document.getElementById(b.getAttribute('aria-describedby') ?? '')?.textContent)).toBe(LONG);

    // At a desk the whole name shows.
    await page.setViewportSize({ width: 1366, height: 850 });
    await expect.poll(async () => (await publisher.boundingBox())?.width ?? 0).toBeGreaterThan(20);
  });
});
