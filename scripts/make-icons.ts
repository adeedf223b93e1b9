/**
 * Draws the PNG icons of the web app manifest from the SVGs in public/icons with Debian's Chromium (the same
 * browser the tests drive): `npx tsx scripts/make-icons.ts`. The PNGs are committed; run this again after
 * changing an SVG.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { launchChromium } from '../tests/e2e/browser';

const dir = resolve('public/icons');
const outputs = [
  { svg: 'icon.svg', png: 'icon-192.png', size: 192 },
  { svg: 'icon.svg', png: 'icon-512.png', size: 512 },
  { svg: 'icon.svg', png: 'apple-touch-icon.png', size: 180, background: '#0f1115' },
  { svg: 'icon-maskable.svg', png: 'icon-maskable-512.png', size: 512 },
];

const browser = await launchChromium();
try {
  for (const o of outputs) {
    const page = await browser.newPage({ viewport: { width: o.size, height: o.size } });
    const svg = readFileSync(resolve(dir, o.svg), 'utf8');
    const background = o.background ?? 'transparent';
    await page.setContent(`<html><body style="margin:0;background:${background}"><img style="display:block;width:${o.size}px;height:${o.size}px" src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}"></body></html>`);
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    writeFileSync(resolve(dir, o.png), await page.screenshot({ omitBackground: background === 'transparent' }));
    await page.close();
  }
} finally {
  await browser.close();
}
