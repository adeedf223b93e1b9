/**
 * The tab's analytics (./usage-tracking.ts), loaded as a chunk of its own once the app has mounted: the first page does
 * not carry the tracker. The page shown meanwhile is remembered and reported when it arrives.
 */
import { useEffect, useRef } from 'react';

type Analytics = typeof import('./usage-tracking');

export function useAnalytics(routeName: string): void {
  const loaded = useRef<Analytics | null>(null);
  const route = useRef(routeName);
  route.current = routeName;
  useEffect(() => {
    let stop: (() => void) | null = null;
    let cancelled = false;
    import('./usage-tracking')
      .then((m) => {
        if (cancelled) return;
        loaded.current = m;
        stop = m.startAnalytics();
        m.routeShown(route.current);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      stop?.();
      loaded.current = null;
    };
  }, []);
  useEffect(() => {
    loaded.current?.routeShown(routeName);
  }, [routeName]);
}
