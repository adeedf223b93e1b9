import { useLayoutEffect, type RefObject } from 'react';

/**
 * Keeps the distance from an element's top to the window's bottom in a CSS variable on the root (for the floating
 * notices and questions, which sit above it), followed as the element grows or the window resizes, and removed when
 * the element goes away or `active` turns false. An element of no height (hidden) counts as absent.
 */
export function useDistanceToBottom(ref: RefObject<HTMLElement | null>, variable: `--${string}`, active = true): void {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!active || !el) return;
    const root = document.documentElement;
    const place = () => {
      const r = el.getBoundingClientRect();
      if (r.height === 0) root.style.removeProperty(variable);
      else root.style.setProperty(variable, `${Math.max(0, Math.round(innerHeight - r.top))}px`);
    };
    place();
    const observer = new ResizeObserver(place);
    observer.observe(el);
    addEventListener('resize', place);
    return () => {
      observer.disconnect();
      removeEventListener('resize', place);
      root.style.removeProperty(variable);
    };
  }, [ref, variable, active]);
}
