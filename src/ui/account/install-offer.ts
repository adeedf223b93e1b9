/**
 * The browser's install offer (Chromium: beforeinstallprompt), caught from the start on the first page and kept for
 * the install banner's Install button (./Banners.tsx).
 */
import { useSyncExternalStore } from 'react';

interface InstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

let offer: InstallPromptEvent | null = null;
const listeners = new Set<() => void>();
const changed = () => {
  for (const l of listeners) l();
};
addEventListener('beforeinstallprompt', (e) => {
  // Our banner offers it instead of the browser's own mini bar.
  e.preventDefault();
  offer = e as InstallPromptEvent;
  changed();
});
addEventListener('appinstalled', () => {
  offer = null;
  changed();
});

export function useInstallOffer(): InstallPromptEvent | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => offer,
  );
}


export function installOffer(): InstallPromptEvent | null {
  return offer;
}

export function clearInstallOffer(): void {
  offer = null;
  changed();
}
