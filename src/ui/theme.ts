/**
 * The colour theme on the document root: `data-theme` = dark | light selects the CSS variables of styles.css.
 * 'system' follows prefers-color-scheme, live: the media query listener re-applies when the OS switches.
 * The preference is engine data; the view mirrors it to localStorage (THEME_KEY) so that public/theme.js, loaded by
 * index.html before the first paint, applies it at once on the next page load (no dark frame for light users).
 */
import { useEffect } from 'react';
import type { Theme } from '../protocol/preferences';

/** The localStorage key of the theme's mirror (public/theme.js reads the same key). */
export const THEME_KEY = 'parley.theme';

const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)');

function apply(theme: 'dark' | 'light'): void {
  document.documentElement.dataset.theme = theme;
}

/** Keeps the document root's theme in step with the preference; undefined (not loaded yet) leaves it as is. */
export function useTheme(theme: Theme | undefined): void {
  useEffect(() => {
    if (theme === undefined) return;
    try {
      localStorage.setItem(THEME_KEY, theme);
    } catch {
      // Storage blocked or full: the next load shows the default theme until the engine answers.
    }
    if (theme !== 'system') {
      apply(theme);
      return;
    }
    const query = darkQuery();
    const follow = () => apply(query.matches ? 'dark' : 'light');
    follow();
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, [theme]);
}
