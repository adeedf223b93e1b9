/**
 * Connectivity notices (spec 001 sections 4 and 8): losing the connection shows a red notice that stays; regaining
 * it replaces that with a green one that closes after 3 s. Each tab shows its own (the browser tells each tab).
 */
import { useEffect } from 'react';
import { showLocalNotice, view } from '../state';

export const OFFLINE_NOTICE = { title: 'Internet connection lost', text: 'Your device appears to be offline. Some features may be unavailable.' } as const;
export const ONLINE_NOTICE = { title: 'Internet connection restored', text: "You're back online" } as const;
/** Spec 001 section 9: reconnect notice 3000 ms. */
export const RECONNECT_NOTICE_MS = 3000;

function dropNotice(title: string): void {
  view.localNotices = view.localNotices.filter((n) => n.title !== title);
}

export function useConnectivityNotices(): void {
  useEffect(() => {
    const offline = () => {
      dropNotice(ONLINE_NOTICE.title);
      showLocalNotice({ ...OFFLINE_NOTICE, tone: 'red', durationMs: null });
    };
    const online = () => {
      dropNotice(OFFLINE_NOTICE.title);
      showLocalNotice({ ...ONLINE_NOTICE, tone: 'green', durationMs: RECONNECT_NOTICE_MS });
    };
    if (!navigator.onLine) offline();
    window.addEventListener('offline', offline);
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('offline', offline);
      window.removeEventListener('online', online);
    };
  }, []);
}
