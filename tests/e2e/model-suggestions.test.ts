/** Recommended models in the empty conversation (spec 000 section 9: 20 models fetched, 15 used), in Chromium. */
import { describe, expect, it } from 'vitest';
import { modelPicker, openApp, useStack } from './stack';

const MORE = Array.from({ length: 24 }, (_, i) => `extra-${String(i + 1).padStart(2, '0')}`);
const getStack = useStack(() => ({ env: { PARLEY_PROVIDERS: JSON.stringify([{ name: 'more', url: 'http://127.0.0.1:9/v1', models: MORE }]) } }));

describe('recommended models', () => {
  it('the empty conversation shows 15 of the 20 fetched; choosing one makes it the model', async () => {
    const context = await getStack().newContext();
    const page = await openApp(context);
    const answer = (await (await page.request.get('/api/suggestions?kind=models')).json()) as { models: string[] };
    expect(answer.models).toHaveLength(20);
    const list = page.getByRole('region', { name: 'Recommended models' });
    await list.waitFor();
    await expect.poll(() => list.getByRole('button').count(), { timeout: 60_000 }).toBe(15);
    await list.getByRole('button', { name: 'extra-05' }).click();
    await modelPicker(page).and(page.locator('[data-value="extra-05"]')).waitFor();
  });
});
