/**
 * Images, the gallery and video jobs end to end in Chromium: the built-in offline engines, an OpenAI images API
 * (a fake server), image-to-image, the gallery's wrap-around, favourites and Go to message, a video job that
 * completes, one that fails, and one resumed by another tab after the leader tab closed.
 */
import type { Page } from 'playwright-core';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startFakeMedia, type FakeMedia } from '../unit/server/fake-media';
import { assistant, chooseModel, openApp, send, user, useStack } from './stack';

let fake: FakeMedia;
beforeAll(async () => {
  fake = await startFakeMedia();
});
afterAll(() => fake?.close());

const getStack = useStack(() => ({
  env: {
    PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'fakeai', url: `${fake.url}/v1`, models: ['gpt-image-1'], imageToImage: ['gpt-image-1'] }]),
    PARLEY_VIDEO_PROVIDERS: JSON.stringify([{ name: 'fakequeue', url: `${fake.url}/queue`, models: ['fake/queue-video'] }]),
    PARLEY_OFFLINE_VIDEO_MS: '1500',
    PARLEY_VIDEO_WORKER_MS: '100',
    PARLEY_VIDEO_POLL_MS: '200',
  },
}));

async function mode(page: Page, name: 'Image' | 'Video'): Promise<void> {
  await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name }).check();
  await page.getByRole('group', { name: `${name} settings` }).waitFor();
}

async function imageShown(page: Page, name = 'Open image 1'): Promise<void> {
  const thumb = assistant(page).last().getByRole('button', { name });
  await thumb.locator('img').waitFor();
  await expect.poll(() => thumb.locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
}

describe('images, end to end in Chromium', () => {
  it('makes an image offline, shows it from a Blob, opens it full size', async () => {
    const page = await openApp(await getStack().newContext());
    await mode(page, 'Image');
    await chooseModel(page, 'parley-offline-image');
    await send(page, 'a red fox at sunset');
    await imageShown(page);
    expect(await assistant(page).last().getByRole('button', { name: 'Open image 1' }).locator('img').getAttribute('src')).toMatch(/^blob:/);
    await assistant(page).last().getByRole('button', { name: 'Open image 1' }).click();
    const viewer = page.getByRole('dialog', { name: 'Image viewer' });
    await viewer.getByRole('img').waitFor();
    // Its caption and alt text are the image's prompt (not "{model} image").
    expect(await viewer.getByRole('img').getAttribute('alt')).toBe('a red fox at sunset');
    await viewer.locator('.viewer-prompt').getByText('a red fox at sunset', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
  });

  it('a chat model answering in image lines (Gemini-style) shows its text and its image in the chat', async () => {
    const page = await openApp(await getStack().newContext());
    await page.setViewportSize({ width: 1366, height: 850 });
    await chooseModel(page, 'parley-offline-image-chat');
    await send(page, 'a blue whale');
    await imageShown(page);
    const reply = assistant(page).last();
    await reply.getByText('Here is a picture for "a blue whale".', { exact: false }).waitFor();
    // No raw JSON line or base64 reaches the text.
    expect(await reply.locator('.message-body').textContent()).not.toContain('"type"');
    await reply.getByRole('button', { name: 'Open image 1' }).click();
    const viewer = page.getByRole('dialog', { name: 'Image viewer' });
    expect(await viewer.getByRole('img').getAttribute('alt')).toBe('a blue whale');
    const shots = process.env.PARLEY_E2E_SHOTS;
    if (shots) {
      await page.screenshot({ path: `${shots}/image-lines-viewer-1366.png` });
      await page.keyboard.press('Escape');
      await page.screenshot({ path: `${shots}/image-lines-1366.png` });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${shots}/image-lines-390.png` });
      await reply.getByRole('button', { name: 'Open image 1' }).click();
      await viewer.getByRole('img').waitFor();
      await page.screenshot({ path: `${shots}/image-lines-viewer-390.png` });
    }
  });

  it('a Mode clicked before the catalogue arrives is kept, and its request goes to a model of that mode', async () => {
    const context = await getStack().newContext();
    // The catalogue is held back until the click is made (the engine worker's request is routed too).
    let release = () => undefined as void;
    const held = new Promise<void>((r) => (release = r));
    let asked = 0;
    await context.route('**/api/models', async (route) => {
      asked++;
      await held;
      await route.continue();
    });
    const page = await context.newPage();
    await page.goto('/conversation/new');
    const modes = page.getByRole('radiogroup', { name: 'Mode' });
    await modes.getByRole('radio', { name: 'Image' }).check();
    // The engine's catalogue request is being held: the click came first.
    await expect.poll(() => asked).toBeGreaterThan(0);
    expect(await page.locator('[role="combobox"][aria-label="Model"][data-value]:not([data-value=""])').count()).toBe(0);
    release();
    await page.getByRole('group', { name: 'Image settings' }).waitFor();
    const picker = page.getByRole('combobox', { name: 'Model', exact: true });
    await picker.and(page.locator('[data-value]:not([data-value=""])')).waitFor();
    const chosen = await picker.getAttribute('data-value');
    const catalogue = (await page.evaluate(async () => (await (await fetch('/api/models')).json()) as { models: { id: string; modality: string }[] })).models;
    expect(catalogue.find((m) => m.id === chosen)?.modality).toBe('image');
    expect(await modes.getByRole('radio', { name: 'Image' }).isChecked()).toBe(true);
    fake.image = 'ok';
    await send(page, 'clicked early');
    await imageShown(page);
    expect(await assistant(page).last().getAttribute('data-model')).toBe(chosen);

    // Reopened while the catalogue is slow again: the last message's image mode is not forced over a click on Chat.
    let releaseAgain = () => undefined as void;
    const heldAgain = new Promise<void>((r) => (releaseAgain = r));
    await context.unroute('**/api/models');
    await context.route('**/api/models', async (route) => {
      await heldAgain;
      await route.continue();
    });
    await page.reload();
    // A click (not check(): Chat is already the mode shown while the page loads).
    await modes.getByRole('radio', { name: 'Chat' }).click();
    releaseAgain();
    await page.getByRole('combobox', { name: 'Model', exact: true }).and(page.locator('[data-value]:not([data-value=""])')).waitFor();
    await page.waitForTimeout(300);
    expect(await modes.getByRole('radio', { name: 'Chat' }).isChecked()).toBe(true);
    expect(await page.getByRole('group', { name: 'Image settings' }).count()).toBe(0);
  });

  it('makes an image with an OpenAI images server, then uses it as the input of image-to-image', async () => {
    const page = await openApp(await getStack().newContext());
    await mode(page, 'Image');
    await chooseModel(page, 'gpt-image-1');
    fake.image = 'ok';
    await send(page, 'a lighthouse');
    await imageShown(page);
    expect(fake.requests.at(-1)?.path).toBe('/v1/images/generations');
    await assistant(page).last().getByRole('button', { name: 'Use as input', exact: true }).click();
    await page.getByRole('button', { name: 'Remove input image 1' }).waitFor();
    // The composer shows it with the requests that use it (its name is its visible line), and says Chat does not.
    const input = page.getByRole('group', { name: 'Input image: used by Image edit / Video / Upscale' });
    await input.locator('img[src^="blob:"]').waitFor();
    expect(await input.textContent()).not.toContain('Not sent with');
    await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name: 'Chat' }).check();
    await input.getByText('Not sent with Chat').waitFor();
    await mode(page, 'Image');
    await send(page, 'make it blue');
    await expect.poll(() => assistant(page).count()).toBe(2);
    await imageShown(page);
    expect(fake.requests.at(-1)?.path).toBe('/v1/images/edits');
    await user(page).last().getByRole('group', { name: 'Input images' }).waitFor();
    // The inputs went with that request.
    expect(await page.getByRole('button', { name: 'Remove input image 1' }).count()).toBe(0);
  });

  it('the offline Upscaler: an empty prompt is sent (filled with Upscale) and the image comes back 3 times larger; an empty prompt for another model is Message is required', async () => {
    const page = await openApp(await getStack().newContext());
    await mode(page, 'Image');
    await chooseModel(page, 'parley-offline-image');
    await send(page, 'a small green hill');
    await imageShown(page);
    await send(page, '');
    await page.getByRole('region', { name: 'Notifications' }).getByText('Message is required').waitFor();
    await assistant(page).last().getByRole('button', { name: 'Use as input', exact: true }).click();
    await chooseModel(page, 'parley-offline-upscaler');
    await page.getByRole('group', { name: 'Image settings' }).getByLabel('Upscale factor').selectOption('3');
    await send(page, '');
    await expect.poll(() => assistant(page).count(), { timeout: 60_000 }).toBe(2);
    const thumb = assistant(page).last().getByRole('button', { name: 'Open image 1' });
    await thumb.locator('img').waitFor({ timeout: 60_000 });
    await thumb.click();
    const viewer = page.getByRole('dialog', { name: 'Image viewer' });
    await expect.poll(() => viewer.getByRole('img').evaluate((img) => (img as HTMLImageElement).naturalWidth), { timeout: 30_000 }).toBe(512 * 3);
    expect(await viewer.getByRole('img').getAttribute('alt')).toBe('Upscale');
    await page.keyboard.press('Escape');
  });

  it('a failing provider marks the prompt with the spec text and charges nothing', async () => {
    const page = await openApp(await getStack().newContext());
    await mode(page, 'Image');
    await chooseModel(page, 'gpt-image-1');
    fake.image = 'wrong-type';
    await send(page, 'broken');
    await page.getByRole('region', { name: 'Notifications' }).getByText('There was an issue generating your image. You have not been charged.').waitFor();
    await user(page).last().getByText('There was an issue generating your image. You have not been charged.').waitFor();
    fake.image = 'ok';
  });

  it('the gallery: every image, previous / next wrapping around with the arrows, favourites, Go to message', async () => {
    const page = await openApp(await getStack().newContext());
    await mode(page, 'Image');
    await chooseModel(page, 'parley-offline-image');
    await page.getByRole('group', { name: 'Image settings' }).getByLabel('Images').fill('2');
    await expect.poll(() => page.getByRole('group', { name: 'Image settings' }).getByLabel('Images').inputValue()).toBe('2');
    await send(page, 'two moons');
    await imageShown(page, 'Open image 2');
    const conversationPath = new URL(page.url()).pathname;
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Gallery' }).click();
    const grid = page.getByRole('list', { name: 'Images' });
    await expect.poll(() => grid.getByRole('button').count()).toBe(2);
    await grid.getByRole('button').first().click();
    const viewer = page.getByRole('dialog', { name: 'Image viewer' });
    await viewer.getByText('1 / 2').waitFor();
    await page.keyboard.press('ArrowLeft');
    await viewer.getByText('2 / 2').waitFor();
    await page.keyboard.press('ArrowRight');
    await viewer.getByText('1 / 2').waitFor();
    await viewer.getByRole('button', { name: 'Next image' }).click();
    await viewer.getByRole('button', { name: 'Next image' }).click();
    await viewer.getByText('1 / 2').waitFor();
    await viewer.getByRole('button', { name: /Favourite/ }).click();
    await expect.poll(() => viewer.getByRole('button', { name: /Favourite/ }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('Escape');
    await page.getByLabel('Favourites only').check();
    await expect.poll(() => grid.getByRole('button').count()).toBe(1);
    await grid.getByRole('button').first().click();
    await viewer.getByRole('button', { name: 'Go to message' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(conversationPath);
    expect(new URL(page.url()).hash).toMatch(/^#message-\d+$/);
    await page.locator('article[data-focused="true"]').waitFor();
  });
});

describe('video jobs, end to end in Chromium', () => {
  it('a job completes offline and plays from the local copy', async () => {
    const page = await openApp(await getStack().newContext());
    await mode(page, 'Video');
    await chooseModel(page, 'parley-offline-video');
    await send(page, 'waves at night');
    await assistant(page).last().locator('[data-video-status]').waitFor();
    const video = assistant(page).last().locator('video');
    await video.waitFor({ timeout: 60_000 });
    expect(await video.getAttribute('src')).toMatch(/^blob:/);
    await expect.poll(() => video.evaluate((v) => (v as HTMLVideoElement).readyState), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    expect(await video.evaluate((v) => (v as HTMLVideoElement).videoWidth)).toBe(256);
  });

  it('a job that fails shows the provider note on the message', async () => {
    fake.statuses = ['IN_PROGRESS', 'FAILED'];
    const page = await openApp(await getStack().newContext());
    await mode(page, 'Video');
    await chooseModel(page, 'fake/queue-video');
    await send(page, 'a dragon');
    await assistant(page).last().getByText('The model could not render this prompt').waitFor({ timeout: 60_000 });
    expect(await assistant(page).last().getAttribute('data-status')).toBe('error');
  });

  it('a job still running 20 minutes (here: a shortened clock) after its message times out', async () => {
    fake.statuses = ['IN_PROGRESS'];
    const context = await getStack().newContext();
    await context.addInitScript(() => localStorage.setItem('parley:engine-timing', JSON.stringify({ videoPollMs: 300, videoTimeoutMs: 4000 })));
    const page = await openApp(context);
    await mode(page, 'Video');
    await chooseModel(page, 'fake/queue-video');
    await send(page, 'forever');
    await assistant(page).last().locator('[data-video-status="processing"]').waitFor({ timeout: 30_000 });
    await assistant(page).last().getByText('Timed out waiting for video generation').waitFor({ timeout: 30_000 });
    expect(await assistant(page).last().getAttribute('data-status')).toBe('error');
  });

  it('a job requested by the leader tab is finished by the next tab after the leader closes', async () => {
    fake.statuses = ['IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS', 'COMPLETED'];
    const context = await getStack().newContext();
    const leader = await openApp(context);
    await mode(leader, 'Video');
    await chooseModel(leader, 'fake/queue-video');
    await send(leader, 'handover clip');
    await assistant(leader).last().locator('[data-video-status]').waitFor();
    const path = new URL(leader.url()).pathname;
    const other = await openApp(context, path);
    await leader.close();
    await other.locator('article[data-role="assistant"] video').waitFor({ timeout: 90_000 });
  });
});
