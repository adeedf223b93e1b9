/** Debian's Chromium driven by playwright-core (no browser download possible here). */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium';

/** `extraArgs`: more switches (a test that needs a browser without one feature). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run', ...extraArgs],
  });
}
