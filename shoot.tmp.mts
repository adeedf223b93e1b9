import { chromium } from 'playwright-core';
import { startGateway } from './src/server/start';
const gw = await startGateway({ port: 0, memory: true, inheritEnv: false, clientDir: '/work/main/dist/client', log: () => undefined, env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' } });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
for (const [w, h] of [[390, 844], [1366, 850]] as const) {
  for (const scheme of ['light'] as const) {
    const ctx = await browser.newContext({ baseURL: gw.url, viewport: { width: w, height: h }, colorScheme: scheme });
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.log('pageerror', e.message));
    await page.goto('/settings');
    await page.getByLabel('Theme').selectOption(scheme);
    await page.waitForTimeout(500);
    await page.goto('/conversation/new');
    await page.getByRole('combobox', { name: 'Model', exact: true }).and(page.locator('[data-value]:not([data-value=""])')).waitFor({ timeout: 120000 });
    await page.getByRole('textbox', { name: 'Message' }).fill('Write a short list of three fruits, with **bold** names.');
    await page.keyboard.press('Enter');
    await page.locator('[data-status="done"]').first().waitFor({ timeout: 60000 });
    await page.waitForTimeout(800);
    await page.screenshot({ path: `/tmp/shots/conv-${w}-${scheme}.png` });
    await page.goto('/updates');
    await page.getByRole('heading', { name: 'Updates', level: 1 }).waitFor();
    await page.waitForTimeout(800);
    await page.screenshot({ path: `/tmp/shots/updates-${w}-${scheme}.png` });
    await page.goto('/inspector');
    await page.waitForTimeout(3000);
    await page.screenshot({ path: `/tmp/shots/inspector-${w}-${scheme}.png` });
    await page.goto('/balance');
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `/tmp/shots/wallet-${w}-${scheme}.png` });
    await ctx.close();
  }
}
await browser.close();
await gw.close();
