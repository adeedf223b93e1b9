/**
 * The colour theme on the document root: `data-theme` = dark | light selects the CSS variables of styles.css.
 * 'system' follows prefers-color-scheme, live: the media query listener re-applies when the OS switches.
 */
import { useEffect } from 'react';
import type { Theme } from '../protocol/preferences';

const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)');

function apply(theme: 'dark' | 'light'): void {
  document.documentElement.dataset.theme = theme;
}

/** Keeps the document root's theme in step with the preference; undefined (not loaded yet) leaves it as is. */
export function useTheme(theme: Theme | undefined): void {
  useEffect(() => {
    if (theme === undefined) return;
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
