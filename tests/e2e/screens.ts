/**
 * The main screens of issue 16 (new conversation, a conversation with replies, multi-model, every section of the
 * Wallet, the Deposit dialog, every section of Settings, Library, Gallery), at both widths and in both themes: filled with a little data in one browser
 * context, then opened one after the other. Used by `npm run shots` (scripts/shots.ts) and the accessibility test
 * (tests/e2e/a11y.test.ts).
 */
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { textReply, type FakeUpstream } from '../unit/server/fake-upstream';
import { FREE_MODEL, chooseModel, modelPicker, send, waitForModels } from './stack';

export const WIDTHS = [
  { name: '390', width: 390, height: 844 },
  { name: '1366', width: 1366, height: 850 },
] as const;
export const THEMES = ['dark', 'light'] as const;
export type ScreenTheme = (typeof THEMES)[number];

const OFFLINE = 'parley-offline';
const OFFLINE_IMAGE = 'parley-offline-image';

/** A reply with the parts a reader meets most: a heading, a list, inline code, a code block and a table. */
export const SAMPLE_REPLY = [
  'Here is a short plan for the **trip to Lisbon**:',
  '',
  '1. Walk up to the *Miradouro da Graça* at sunset.',
  '2. Take tram `28` early, before the queues.',
  '3. Eat pastéis de nata in Belém.',
  '',
  '```python',
  'def budget(days: int, per_day: float = 80.0) -> float:',
  '    return days * per_day',
  '```',
  '',
  '| Day | Area | Cost |',
  '| --- | --- | --- |',
  '| 1 | Alfama | $60 |',
  '| 2 | Belém | $45 |',
].join('\n');

/** Addresses of the conversations made by `fillScreens`. */
export interface ScreenData {
  conversation: string;
  multiModel: string;
}

export interface Screen {
  name: string;
  /** Shows the screen on a page of the filled context and waits until it is drawn. */
  open(page: Page): Promise<void>;
  /** Puts the page back for the next screen (closes a dialog). */
  close?(page: Page): Promise<void>;
}

/** Moves to a path inside the app without a reload (the router follows popstate). */
export async function goInApp(page: Page, path: string): Promise<void> {
  await page.evaluate((p) => {
    history.pushState(null, '', p);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

function samplePng(): Buffer {
  const png = new PNG({ width: 160, height: 120 });
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      png.data[i] = 40 + x;
      png.data[i + 1] = 90 + y;
      png.data[i + 2] = 200 - x / 2;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

const done = (page: Page) => page.locator('article[data-role="assistant"][data-status="done"]');

/**
 * Fills the context of `page` (opened at /conversation/new, models shown): a conversation with a reply, a
 * multi-model one, an offline image for the Gallery and a file in the Library.
 */
export async function fillScreens(page: Page, upstream: FakeUpstream): Promise<ScreenData> {
  upstream.setScript(textReply(SAMPLE_REPLY, { usage: { prompt_tokens: 12, completion_tokens: 80 } }));
  await chooseModel(page, FREE_MODEL);
  await send(page, 'Plan three days in Lisbon for me');
  await done(page).first().waitFor({ timeout: 60_000 });
  await page.waitForURL((u) => !u.pathname.endsWith('/new'));
  const conversation = new URL(page.url()).pathname;
  // The one-time question about automatic titles, answered so that it does not cover the screens.
  await page.getByRole('button', { name: 'No', exact: true }).click({ timeout: 30_000 }).catch(() => undefined);

  await goInApp(page, '/conversation/new');
  await waitForModels(page);
  await chooseModel(page, OFFLINE);
  await page.getByRole('button', { name: 'Add model' }).click();
  await page.getByRole('button', { name: `Remove ${FREE_MODEL}` }).waitFor();
  upstream.setScript(textReply('Lisbon in three days: Alfama, Belém and Sintra, one a day.'));
  await send(page, 'Compare your plans for Lisbon');
  await expectCount(page, () => done(page).count(), 2);
  await page.waitForURL((u) => !u.pathname.endsWith('/new'));
  const multiModel = new URL(page.url()).pathname;

  await goInApp(page, '/conversation/new');
  await waitForModels(page);
  await page.getByRole('radiogroup', { name: 'Mode' }).getByRole('radio', { name: 'Image' }).check();
  await page.getByRole('group', { name: 'Image settings' }).waitFor();
  await chooseModel(page, OFFLINE_IMAGE);
  await send(page, 'a red fox at sunset');
  await page.locator('article[data-role="assistant"]').last().getByRole('button', { name: 'Open image 1' }).locator('img').waitFor({ timeout: 60_000 });

  await goInApp(page, '/library');
  await page.getByRole('heading', { name: 'Library' }).waitFor();
  await page.getByLabel('Add files to the library').setInputFiles({ name: 'lisbon-map.png', mimeType: 'image/png', buffer: samplePng() });
  await page.getByRole('list', { name: 'Library files' }).getByRole('listitem').filter({ hasText: 'lisbon-map.png' }).waitFor({ timeout: 60_000 });
  return { conversation, multiModel };
}

async function expectCount(page: Page, count: () => Promise<number>, want: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await count()) >= want) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`Timed out waiting for ${want} finished replies`);
}

/** Sets the theme preference (kept by the engine for the whole context) and waits until the page shows it. */
export async function setTheme(page: Page, theme: ScreenTheme): Promise<void> {
  await goInApp(page, '/settings');
  await page.getByRole('combobox', { name: 'Theme' }).selectOption(theme);
  await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
}

/** Waits until nothing animates (transitions of a page just shown), so a screenshot or a contrast check is stable. */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'), undefined, { timeout: 10_000 }).catch(() => undefined);
}

/** The sections of Settings and the Wallet (SectionedPage.tsx): the address's last part and the section's heading. */
export const SETTINGS_SECTIONS = [
  { id: 'general', title: 'General' },
  { id: 'chat', title: 'Chat' },
  { id: 'layout', title: 'Layout' },
  { id: 'voice', title: 'Voice' },
  { id: 'web', title: 'Web search' },
  { id: 'privacy', title: 'Privacy' },
  { id: 'data', title: 'Data' },
  { id: 'developer', title: 'Developer' },
] as const;
/** The Wallet's sections on the default test stack ("Nano wallet" only where nano is set up: tests/e2e/money.test.ts). */
export const WALLET_SECTIONS = [
  { id: 'overview', title: 'Overview' },
  { id: 'auto-recharge', title: 'Auto-recharge' },
  { id: 'history', title: 'History' },
  { id: 'recovery', title: 'Recovery code' },
] as const;

export function mainScreens(data: ScreenData): Screen[] {
  const section = (page: 'settings' | 'wallet', s: { id: string; title: string }): Screen => ({
    name: `${page}-${s.id}`,
    async open(p) {
      await goInApp(p, `/${page}/${s.id}`);
      await p.getByRole('region', { name: s.title, exact: true }).getByRole('heading', { name: s.title, level: 2 }).waitFor();
      await settle(p);
    },
  });
  return [
    {
      name: 'new-conversation',
      async open(p) {
        await goInApp(p, '/conversation/new');
        await waitForModels(p);
        await settle(p);
      },
    },
    {
      name: 'conversation',
      async open(p) {
        await goInApp(p, data.conversation);
        await done(p).first().waitFor();
        await modelPicker(p).waitFor();
        await settle(p);
      },
    },
    {
      name: 'multi-model',
      async open(p) {
        await goInApp(p, data.multiModel);
        await p.getByRole('group', { name: 'Replies from 2 models' }).waitFor();
        await settle(p);
      },
    },
    ...WALLET_SECTIONS.map((s) => section('wallet', s)),
    {
      name: 'deposit',
      async open(p) {
        await goInApp(p, '/wallet');
        await p.getByRole('button', { name: 'Deposit', exact: true }).click();
        await p.getByRole('dialog', { name: 'Deposit' }).getByRole('list', { name: 'Payment steps' }).waitFor();
        await p.getByRole('dialog', { name: 'Deposit' }).getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
        await settle(p);
      },
      async close(p) {
        await p.keyboard.press('Escape');
        await p.getByRole('dialog', { name: 'Deposit' }).waitFor({ state: 'detached' });
      },
    },
    ...SETTINGS_SECTIONS.map((s) => section('settings', s)),
    {
      name: 'library',
      async open(p) {
        await goInApp(p, '/library');
        await p.getByRole('list', { name: 'Library files' }).getByRole('listitem').first().waitFor();
        await settle(p);
      },
    },
    {
      name: 'gallery',
      async open(p) {
        await goInApp(p, '/gallery');
        await p.getByRole('heading', { name: 'Gallery', level: 1 }).waitFor();
        await p.getByRole('list', { name: 'Images' }).locator('img').first().waitFor();
        await settle(p);
      },
    },
  ];
}
