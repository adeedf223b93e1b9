/**
 * Image models end to end in Chromium (issue 9): each model shows its own settings as controls and what is set
 * reaches the gateway (a fake OpenAI images server); flux-schnell's free images of the day are counted in the
 * composer, then the Deposit dialog opens with the gateway's message; a Midjourney-style grid shows four different
 * variations to choose from, and the chosen one is used as the next request's input.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMedia, type FakeMedia } from '../unit/server/fake-media';
import { assistant, chooseModel, openApp, send, user, useStack } from './stack';

let fake: FakeMedia;
beforeAll(async () => {
  fake = await startFakeMedia();
});
afterAll(() => fake?.close());

const getStack = useStack(() => ({
  env: {
    PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'fakeai', url: `${fake.url}/v1`, models: ['gpt-image-1', 'flux-schnell'], pricing: { 'gpt-image-1': '0.04', 'flux-schnell': '0.003' }, imageToImage: ['gpt-image-1'] }]),
  },
}));

async function imageMode(page: Page): Promise<void> {
  await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name: 'Image' }).check();
  await page.getByRole('group', { name: 'Image settings' }).waitFor();
}

const settings = (page: Page) => page.getByRole('group', { name: 'Image settings' });

/** With PARLEY_E2E_SHOTS set, screenshots at the desktop and the phone size, for a look by hand. */
async function shots(page: Page, name: string): Promise<void> {
  const dir = process.env.PARLEY_E2E_SHOTS;
  if (!dir) return;
  for (const [w, h] of [[1366, 850], [390, 844]] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${dir}/${name}-${w}.png` });
  }
}

describe("image models' own controls", () => {
  it('two models show different controls, and a negative prompt set on flux-schnell reaches the provider', async () => {
    const page = await openApp(await getStack().newContext());
    await imageMode(page);
    await chooseModel(page, 'gpt-image-1');
    await settings(page).getByLabel('Resolution').waitFor();
    expect(await settings(page).getByLabel('Negative prompt').count()).toBe(0);
    expect(await settings(page).getByLabel('Seed').count()).toBe(0);
    expect(await settings(page).getByLabel('Width').count()).toBe(0);

    await chooseModel(page, 'flux-schnell');
    await settings(page).getByLabel('Negative prompt').waitFor();
    expect(await settings(page).getByLabel('Resolution').count()).toBe(0);
    expect(await settings(page).getByLabel('Width').count()).toBe(1);
    expect(await settings(page).getByLabel('Seed').count()).toBe(1);
    // Spec 000 section 6: ten free a day, counted by the server.
    await settings(page).getByText('10 free images left today').waitFor();

    await settings(page).getByLabel('Negative prompt').fill('blurry, text');
    await settings(page).getByLabel('Seed').fill('42');
    await settings(page).getByLabel('Seed').blur();
    // Kept per model: another model's controls do not carry it, flux-schnell's still do.
    await chooseModel(page, 'gpt-image-1');
    await chooseModel(page, 'flux-schnell');
    await expect.poll(() => settings(page).getByLabel('Negative prompt').inputValue()).toBe('blurry, text');
    await send(page, 'a quiet harbour');
    await assistant(page).last().getByRole('button', { name: 'Open image 1' }).locator('img').waitFor();
    const sent = JSON.parse(fake.requests.filter((r) => r.path === '/v1/images/generations').at(-1)?.body ?? '{}') as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'flux-schnell', prompt: 'a quiet harbour', negative_prompt: 'blurry, text', seed: 42 });
    await settings(page).getByText('9 free images left today').waitFor();
    await shots(page, 'image-controls-flux');
  });

  it("flux-schnell's free images spent: the gateway's message, and the Deposit dialog opens", async () => {
    const page = await openApp(await getStack().newContext());
    await imageMode(page);
    await chooseModel(page, 'flux-schnell');
    await settings(page).getByText('10 free images left today').waitFor();
    // Ten uses today (as another tab of the same session would have made them).
    const statuses = await page.evaluate(async () => {
      const out: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch('/api/generate-image', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: `use ${i}`, model: 'flux-schnell', conversationUUID: 'other-tab' }) });
        out.push(res.status);
      }
      return out;
    });
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 200));
    await send(page, 'one more harbour');
    const dialog = page.getByRole('dialog', { name: 'Deposit' });
    await dialog.waitFor();
    const notice = page.locator('.notice').filter({ hasText: 'Free images used up for today' });
    await notice.getByText('Your 10 free flux-schnell images for today are used up. Add funds to keep generating.').waitFor();
    await settings(page).getByText('No free images left today').waitFor();
    await user(page).last().getByText('Free images used up for today').waitFor();
    await shots(page, 'free-limit-deposit');
  });
});

describe('a Midjourney-style grid', () => {
  it('shows four different variations to choose from; the chosen one is the input of the next image', async () => {
    const page = await openApp(await getStack().newContext());
    // An image's pixels, hashed (a blob: URL cannot be fetched under the app's CSP; a canvas can read it).
    await page.evaluate(() => {
      (window as unknown as { pixelsOf(i: Element): string }).pixelsOf = (el) => {
        const img = el as HTMLImageElement;
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const g = canvas.getContext('2d') as CanvasRenderingContext2D;
        g.drawImage(img, 0, 0);
        const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
        let h = 0;
        for (const b of data) h = (Math.imul(h, 31) + b) | 0;
        return `${canvas.width}x${canvas.height}:${h}`;
      };
    });
    await imageMode(page);
    await chooseModel(page, 'parley-offline-grid');
    await send(page, 'a castle on a hill');
    const choose = assistant(page).first().getByRole('group', { name: 'Choose an image' });
    for (let i = 1; i <= 4; i++) await choose.getByRole('button', { name: `Open variation ${i}` }).locator('img').waitFor();
    // Four crops of one grid, each a different picture.
    const crops = await choose.locator('img').evaluateAll((imgs) => imgs.map((img) => (window as unknown as { pixelsOf(i: Element): string }).pixelsOf(img)));
    expect(crops).toHaveLength(4);
    expect(new Set(crops).size).toBe(4);

    // The first reply asks about automatic titles; the question floats over the bottom of the page, so it is answered.
    await page.getByRole('dialog', { name: 'Automatic titles' }).getByRole('button', { name: 'No', exact: true }).click();
    await choose.getByRole('button', { name: 'Use image 3 as input' }).click();
    await chooseModel(page, 'parley-offline-image');
    await page.getByRole('button', { name: 'Remove input image 1' }).waitFor();
    await send(page, 'the same castle at night');
    await expect.poll(() => assistant(page).count()).toBe(2);
    const input = user(page).last().getByRole('group', { name: 'Input images' }).locator('img');
    await input.waitFor();
    // The input is the third variation's image.
    const [chosen, used] = await Promise.all([choose.locator('img').nth(2), input].map((l) => l.evaluate((img) => (window as unknown as { pixelsOf(i: Element): string }).pixelsOf(img))));
    expect(used).toBe(chosen);
  });
});
