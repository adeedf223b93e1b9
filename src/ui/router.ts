/** A few routes need no routing library: the History API and useSyncExternalStore. */
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};
// Guarded so that the pure route functions below can be tested outside a browser.
if (typeof addEventListener === 'function') addEventListener('popstate', notify);

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  notify();
}

export function usePath(): string {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => location.pathname + location.search,
  );
}

export type Route = { name: 'conversation'; slug: string } | { name: 'wallet'; section: string | null } | { name: 'settings'; section: string | null } | { name: 'home' } | { name: 'invitations' } | { name: 'gallery' } | { name: 'updates' } | { name: 'library' } | { name: 'inspector' };

/**
 * Routes (spec 001 section 2). Settings and the Wallet are sectioned pages: `/settings/voice`, `/wallet/history`
 * (the section is in the path, so the back button and a reload keep it; none = the first section). `/balance` is
 * the Wallet and `/media?mode=&model=` a new conversation in that mode with that model: both are named by
 * updates-feed links; the new conversation keeps the query (see `homeTarget`).
 */
export function matchRoute(path: string): Route {
  const pathname = path.split('?')[0] ?? '/';
  if (pathname === '/balance') return { name: 'wallet', section: null };
  const paged = /^\/(wallet|settings)(?:\/([a-z-]+))?\/?$/.exec(pathname);
  if (paged?.[1] === 'wallet' || paged?.[1] === 'settings') return { name: paged[1], section: paged[2] ?? null };
  if (pathname === '/gallery') return { name: 'gallery' };
  if (pathname === '/invitations') return { name: 'invitations' };
  if (pathname === '/library') return { name: 'library' };
  if (pathname === '/updates') return { name: 'updates' };
  if (pathname === '/inspector') return { name: 'inspector' };
  const m = /^\/conversation\/(.+)$/.exec(pathname);
  if (m?.[1]) return { name: 'conversation', slug: m[1] };
  return { name: 'home' };
}

/** The id of a share link's page (/share/{id}, src/protocol/share.ts; checked by the page), or null for any other path. */
export function shareRouteId(pathname: string): string | null {
  const m = /^\/share\/([^/]+)\/?$/.exec(pathname);
  return m?.[1] ?? null;
}

/** The prompt carried by an unknown slug: URL-decoded (spec 000 section 2); malformed escapes are kept as typed. */
export function decodeSlugPrompt(slug: string): string {
  try {
    return decodeURIComponent(slug);
  } catch {
    return slug;
  }
}

/** Where the home route (`/`, `/media` and unknown paths) goes: a new conversation, keeping the query
 * (`?mode=image&model=...` from a feed link reaches the composer, spec 000 section 2). */
export function homeTarget(path: string): string {
  const at = path.indexOf('?');
  return `/conversation/new${at < 0 ? '' : path.slice(at)}`;
}
