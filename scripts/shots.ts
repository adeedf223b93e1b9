/**
 * npm run shots: the main screens at 390x844 and 1366x850, in the dark and the light theme, as PNGs in `shots/`
 * (git-ignored), so a reviewer can look at every screen in a minute. It starts its own stack on free loopback ports
 * (the fake upstream, the gateway in memory serving dist/client, Debian's Chromium), as the browser tests do.
 * Run after `vite build` (the npm script builds first). `SHOTS_DIR` writes elsewhere.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { openApp, startStack } from '../tests/e2e/stack';
import { THEMES, WIDTHS, fillScreens, mainScreens, setTheme } from '../tests/e2e/screens';

const out = resolve(process.env.SHOTS_DIR ?? 'shots');

async function main(): Promise<void> {
  await mkdir(out, { recursive: true });
  const stack = await startStack();
  try {
    const context = await stack.newContext();
    const page = await openApp(context);
    await page.setViewportSize({ width: 1366, height: 850 });
    const data = await fillScreens(page, stack.upstream);
    const screens = mainScreens(data);
    let n = 0;
    for (const theme of THEMES) {
      await setTheme(page, theme);
      for (const size of WIDTHS) {
        await page.setViewportSize({ width: size.width, height: size.height });
        for (const screen of screens) {
          await screen.open(page);
          await page.screenshot({ path: `${out}/${screen.name}-${size.name}-${theme}.png` });
          n++;
          await screen.close?.(page);
        }
      }
    }
    console.log(`${n} screenshots in ${out}`);
  } finally {
    await stack.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
