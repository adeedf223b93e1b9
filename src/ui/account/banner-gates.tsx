/**
 * The banners' conditions, on the first page; the banners themselves (./Banners.tsx) are a chunk of its own, loaded
 * when one is to show (they float with the notices: nothing moves when they arrive). The consent banner when the
 * engine says so (spec 001 sections 2 and 4), the recovery prompt while it asks (and after, while it shows the code
 * it made), the install banner once the browser offers installing (its event is caught here, from the start).
 */
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { shouldAskForRecoveryCode } from '../../protocol/recovery-prompt';
import { useQuery } from '../engine';
import { useInstallOffer } from './install-offer';

const Bodies = () => import('./Banners');
const ConsentBody = lazy(() => Bodies().then((m) => ({ default: m.ConsentBanner })));
const RecoveryBody = lazy(() => Bodies().then((m) => ({ default: m.RecoveryPrompt })));
const InstallBody = lazy(() => Bodies().then((m) => ({ default: m.InstallBanner })));

const later = (body: ReactNode) => <Suspense fallback={null}>{body}</Suspense>;

export function ConsentBanner() {
  const consent = useQuery({ kind: 'consent' });
  return consent?.showBanner ? later(<ConsentBody />) : null;
}

export function RecoveryPrompt() {
  const session = useQuery({ kind: 'session' });
  const wallet = useQuery({ kind: 'wallet' });
  const preferences = useQuery({ kind: 'preferences' });
  // Once asked, the prompt stays mounted: after "Save a recovery code" it shows the code although it no longer asks.
  const [asked, setAsked] = useState(false);
  const ask = !!session && !!wallet && !!preferences && shouldAskForRecoveryCode({ canUsePaidModels: session.canUsePaidModels, account: wallet.account, snoozedUntil: preferences.recoveryPromptSnoozedUntil, now: Date.now() });
  if (ask && !asked) setAsked(true);
  return ask || asked ? later(<RecoveryBody />) : null;
}

export function InstallBanner() {
  const preferences = useQuery({ kind: 'preferences' });
  const available = useInstallOffer();
  return available && preferences && !preferences.installBannerHidden ? later(<InstallBody />) : null;
}
