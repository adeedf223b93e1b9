/**
 * The lucide icons the first page draws (More tools, Study Mode, the pin mark, the suggestions' arrows, the sidebar's
 * page links), drawn here
 * from lucide's own path data (lucide-react 1.x, ISC licence) with lucide's attributes, so they look the same as the
 * icons of the lazy chunks: lucide-react's runtime (about 1.5 KB gzip) is then not on the first page
 * (docs/benchmarks.md, "cold start"). Keep the paths in step with lucide's when it is updated.
 */
import { createElement, type SVGAttributes } from 'react';

interface GlyphProps extends Pick<SVGAttributes<SVGSVGElement>, 'className'> {
  size?: number;
  strokeWidth?: number;
  'aria-hidden'?: boolean;
}

/** A path's `d`, or another of lucide's shapes with its attributes in lucide's order. */
type Shape = string | readonly ['circle' | 'rect', Readonly<Record<string, string>>];

function glyph(name: string, shapes: readonly Shape[]) {
  function Glyph({ size = 24, strokeWidth = 2, className, 'aria-hidden': hidden = true }: GlyphProps) {
    return (
      <svg
        xmlns="http://www.w3.org/2000/svg"
        width={size}
        height={size}
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth={strokeWidth}
        strokeLinecap="round"
        strokeLinejoin="round"
        className={`lucide lucide-${name}${className ? ` ${className}` : ''}`}
        aria-hidden={hidden}
      >
        {shapes.map((s, i) => (typeof s === 'string' ? <path key={s} d={s} /> : createElement(s[0], { key: i, ...s[1] })))}
      </svg>
    );
  }
  return Glyph;
}

export const Plus = glyph('plus', ['M5 12h14', 'M12 5v14']);
export const GraduationCap = glyph('graduation-cap', [
  'M21.42 10.922a1 1 0 0 0-.019-1.838L12.83 5.18a2 2 0 0 0-1.66 0L2.6 9.08a1 1 0 0 0 0 1.832l8.57 3.908a2 2 0 0 0 1.66 0z',
  'M22 10v6',
  'M6 12.5V16a6 3 0 0 0 12 0v-3.5',
]);
export const Pin = glyph('pin', [
  'M12 17v5',
  'M9 10.76a2 2 0 0 1-1.11 1.79l-1.78.9A2 2 0 0 0 5 15.24V16a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1v-.76a2 2 0 0 0-1.11-1.79l-1.78-.9A2 2 0 0 1 15 10.76V7a1 1 0 0 1 1-1 2 2 0 0 0 0-4H8a2 2 0 0 0 0 4 1 1 0 0 1 1 1z',
]);
export const ChevronLeft = glyph('chevron-left', ['m15 18-6-6 6-6']);
export const ChevronRight = glyph('chevron-right', ['m9 18 6-6-6-6']);

// The sidebar's page links (App.tsx, UpdatesLink.tsx).
export const Wallet = glyph('wallet', [
  'M19 7V4a1 1 0 0 0-1-1H5a2 2 0 0 0 0 4h15a1 1 0 0 1 1 1v4h-3a2 2 0 0 0 0 4h3a1 1 0 0 0 1-1v-2a1 1 0 0 0-1-1',
  'M3 5v14a2 2 0 0 0 2 2h15a1 1 0 0 0 1-1v-4',
]);
export const Settings = glyph('settings', [
  'M9.671 4.136a2.34 2.34 0 0 1 4.659 0 2.34 2.34 0 0 0 3.319 1.915 2.34 2.34 0 0 1 2.33 4.033 2.34 2.34 0 0 0 0 3.831 2.34 2.34 0 0 1-2.33 4.033 2.34 2.34 0 0 0-3.319 1.915 2.34 2.34 0 0 1-4.659 0 2.34 2.34 0 0 0-3.32-1.915 2.34 2.34 0 0 1-2.33-4.033 2.34 2.34 0 0 0 0-3.831A2.34 2.34 0 0 1 6.35 6.051a2.34 2.34 0 0 0 3.319-1.915',
  ['circle', { cx: '12', cy: '12', r: '3' }],
]);
export const Images = glyph('images', [
  'm22 11-1.296-1.296a2.4 2.4 0 0 0-3.408 0L11 16',
  'M4 8a2 2 0 0 0-2 2v10a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2',
  ['circle', { cx: '13', cy: '7', r: '1', fill: 'currentColor' }],
  ['rect', { x: '8', y: '2', width: '14', height: '14', rx: '2' }],
]);
export const Gift = glyph('gift', [
  'M12 7v14',
  'M20 11v8a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2v-8',
  'M7.5 7a1 1 0 0 1 0-5A4.8 8 0 0 1 12 7a4.8 8 0 0 1 4.5-5 1 1 0 0 1 0 5',
  ['rect', { x: '3', y: '7', width: '18', height: '4', rx: '1' }],
]);
export const Library = glyph('library', ['m16 6 4 14', 'M12 6v14', 'M8 8v12', 'M4 4v16']);
export const Bell = glyph('bell', [
  'M10.268 21a2 2 0 0 0 3.464 0',
  'M3.262 15.326A1 1 0 0 0 4 17h16a1 1 0 0 0 .74-1.673C19.41 13.956 18 12.499 18 8A6 6 0 0 0 6 8c0 4.499-1.411 5.956-2.738 7.326',
]);
