/**
 * Banners above the page: analytics consent (spec 001 sections 2 and 4: only when the status is pending and a
 * session exists) and the install banner (the browser's beforeinstallprompt, not shown once installBannerHidden).
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { ActionResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { report } from './folder-state';
import { savePreferences } from './SidebarParts';

export function ConsentBanner() {
  const consent = useQuery({ kind: 'consent' });
  const [busy, setBusy] = useState(false);
  if (!consent?.showBanner) return null;
  const decide = async (granted: boolean) => {
    setBusy(true);
    report(await engine<ActionResult>((api) => (granted ? api.grantConsent() : api.denyConsent())));
    setBusy(false);
  };
  return (
    <section className="banner consent-banner" aria-label="Analytics consent">
      <p>
        <strong>Allow usage analytics?</strong> Parley would record which features you try, first-party only: no
        third-party script. Nothing is recorded unless you agree; Settings can change it.
      </p>
      <div className="banner-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void decide(true)}>
          Accept analytics
        </button>
        <button type="button" disabled={busy} onClick={() => void decide(false)}>
          Decline
        </button>
      </div>
    </section>
  );
}

/** The browser's install offer (Chromium: beforeinstallprompt), kept for the banner's Install button. */
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

function useInstallOffer(): InstallPromptEvent | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => offer,
  );
}

export function InstallBanner() {
  const preferences = useQuery({ kind: 'preferences' });
  const available = useInstallOffer();
  const [closed, setClosed] = useState(false);
  useEffect(() => setClosed(false), [available]);
  if (!available || closed || !preferences || preferences.installBannerHidden) return null;
  const install = async () => {
    setClosed(true);
    await available.prompt();
    await available.userChoice.catch(() => undefined);
    if (offer === available) {
      offer = null;
      changed();
    }
  };
  return (
    <section className="banner install-banner" aria-label="Install Parley">
      <p>
        <strong>Install Parley</strong> as an app: it opens in its own window and starts even without a network.
      </p>
      <div className="banner-actions">
        <button type="button" className="primary" onClick={() => void install()}>
          Install
        </button>
        <button type="button" onClick={() => savePreferences({ installBannerHidden: true })}>
          Don't show again
        </button>
      </div>
    </section>
  );
}
