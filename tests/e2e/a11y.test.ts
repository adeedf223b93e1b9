/**
 * Accessibility of the main screens (issue 16): axe-core, served from node_modules into the page, finds no serious
 * or critical violation on a new conversation, a conversation with replies, multi-model, every section of the
 * Wallet, the Deposit dialog, every section of Settings, the Library and the Gallery, at 390x844 and 1366x850, in
 * the dark and the light theme.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { THEMES, WIDTHS, fillScreens, mainScreens, setTheme, type Screen } from './screens';
import { openApp, useStack } from './stack';

const getStack = useStack();
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Finding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe on the page as it is and returns its serious and critical violations, one line of targets each. */
async function seriousViolations(page: Page): Promise<Finding[]> {
  // page.evaluate is not bound by the page's Content-Security-Policy (an injected <script> would be).
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, options: object): Promise<{ violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ rule: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}

let page: Page;
let screens: Screen[];

beforeAll(async () => {
  page = await openApp(await getStack().newContext());
  await page.setViewportSize({ width: 1366, height: 850 });
  screens = mainScreens(await fillScreens(page, getStack().upstream));
});

describe('accessibility of the main screens (axe-core)', () => {
  for (const theme of THEMES) {
    for (const size of WIDTHS) {
      it(`no serious or critical violation at ${size.width}x${size.height}, ${theme} theme`, async () => {
        await setTheme(page, theme);
        await page.setViewportSize({ width: size.width, height: size.height });
        const found: Record<string, Finding[]> = {};
        for (const screen of screens) {
          await screen.open(page);
          const violations = await seriousViolations(page);
          if (violations.length > 0) found[screen.name] = violations;
          await screen.close?.(page);
        }
        expect(found).toEqual({});
      }, 300_000);
    }
  }
});
