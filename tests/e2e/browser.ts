/** Debian's Chromium driven by playwright-core (no browser download possible here). */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
  });
}
