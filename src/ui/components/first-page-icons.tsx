/**
 * The lucide icons the first page draws (More tools, Study Mode, the pin mark, the suggestions' arrows), drawn here
 * from lucide's own path data (lucide-react 1.x, ISC licence) with lucide's attributes, so they look the same as the
 * icons of the lazy chunks: lucide-react's runtime (about 1.5 KB gzip) is then not on the first page
 * (docs/benchmarks.md, "cold start"). Keep the paths in step with lucide's when it is updated.
 */
import type { SVGAttributes } from 'react';

interface GlyphProps extends Pick<SVGAttributes<SVGSVGElement>, 'className'> {
  size?: number;
  strokeWidth?: number;
  'aria-hidden'?: boolean;
}

function glyph(name: string, paths: readonly string[]) {
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
        {paths.map((d) => (
          <path key={d} d={d} />
        ))}
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
