import { createElement, type ComponentType } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Bell, ChevronLeft, ChevronRight, Gift, GraduationCap, Images, Library, Pin, Plus, Settings, Wallet } from 'lucide-react';
import * as ours from '../../../src/ui/components/first-page-icons';

type Glyph = ComponentType<{ size?: number; strokeWidth?: number; className?: string; 'aria-hidden'?: boolean }>;

// The first page draws these without lucide-react's runtime (docs/benchmarks.md, "cold start"): they must stay
// the same SVG lucide-react draws, with the props the app passes (IconButton: 16 / 2; the pin mark: 13 / 2.25).
const PAIRS: ReadonlyArray<[string, Glyph, Glyph]> = [
  ['Plus', Plus, ours.Plus],
  ['GraduationCap', GraduationCap, ours.GraduationCap],
  ['Pin', Pin, ours.Pin],
  ['ChevronLeft', ChevronLeft, ours.ChevronLeft],
  ['ChevronRight', ChevronRight, ours.ChevronRight],
  ['Wallet', Wallet, ours.Wallet],
  ['Settings', Settings, ours.Settings],
  ['Images', Images, ours.Images],
  ['Gift', Gift, ours.Gift],
  ['Library', Library, ours.Library],
  ['Bell', Bell, ours.Bell],
];

describe('first-page icons', () => {
  for (const [name, theirs, mine] of PAIRS) {
    it(`${name} is the SVG lucide-react draws`, () => {
      for (const props of [{ size: 16, strokeWidth: 2, 'aria-hidden': true }, { className: 'pin-mark', size: 13, strokeWidth: 2.25, 'aria-hidden': true }, { size: 14, strokeWidth: 2, 'aria-hidden': true }]) {
        expect(renderToStaticMarkup(createElement(mine, props))).toBe(renderToStaticMarkup(createElement(theirs, props)));
      }
    });
  }
});
