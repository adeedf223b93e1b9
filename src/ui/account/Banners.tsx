/**
 * Banners above the page: analytics consent (spec 001 sections 2 and 4: only when the status is pending and a
 * session exists), the recovery-code prompt (spec 001 section 7's canMigrate: a balance and no recovery code yet)
 * and the install banner (the browser's beforeinstallprompt, not shown once installBannerHidden). A chunk of its own,
 * loaded when one of them is to show (./banner-gates.tsx decides on the first page).
 */
import { useEffect, useState } from 'react';
import type { ActionResult, MoneyResult } from '../../protocol/engine';
import { RECOVERY_PROMPT_SNOOZE_MS, RECOVERY_PROMPT_TEXT, shouldAskForRecoveryCode } from '../../protocol/recovery-prompt';
import { engine, useQuery } from '../engine';
import { report } from './folder-state';
import { savePreferences } from './SidebarParts';
import { clearInstallOffer, installOffer, useInstallOffer } from './install-offer';

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

/**
 * A calm question, not an error: a session with money and no recovery code loses that money with this browser's
 * data. "Save a recovery code" makes one here and shows it once; "Not now" asks again in a week.
 */
export function RecoveryPrompt() {
  const session = useQuery({ kind: 'session' });
  const wallet = useQuery({ kind: 'wallet' });
  const preferences = useQuery({ kind: 'preferences' });
  const [code, setCode] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const T = RECOVERY_PROMPT_TEXT;
  if (code) {
    return (
      <section className="banner recovery-banner" aria-label="Recovery code">
        <p>{T.saveNow}</p>
        <code className="recovery-banner-code" aria-label="Your recovery code">
          {code}
        </code>
        <p className="muted">Enter it on the Wallet page of another browser to open this session and its balance there.</p>
        <div className="banner-actions">
          <button type="button" onClick={() => void navigator.clipboard?.writeText(code)}>
            Copy code
          </button>
          <button type="button" className="primary" onClick={() => setCode(null)}>
            {T.saved}
          </button>
        </div>
      </section>
    );
  }
  if (!session || !wallet || !preferences) return null;
  const ask = shouldAskForRecoveryCode({ canUsePaidModels: session.canUsePaidModels, account: wallet.account, snoozedUntil: preferences.recoveryPromptSnoozedUntil, now: Date.now() });
  if (!ask) return null;
  const save = async () => {
    setBusy(true);
    const r = await engine<MoneyResult<{ code: string }>>((api) => api.createRecoveryCode());
    setBusy(false);
    if (r.ok) setCode(r.code);
  };
  return (
    <section className="banner recovery-banner" aria-label={T.title}>
      <p>
        <strong>{T.title}.</strong> {T.text}
      </p>
      <div className="banner-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void save()}>
          {T.save}
        </button>
        <button type="button" disabled={busy} onClick={() => savePreferences({ recoveryPromptSnoozedUntil: Date.now() + RECOVERY_PROMPT_SNOOZE_MS })}>
          {T.later}
        </button>
      </div>
    </section>
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
    if (installOffer() === available) clearInstallOffer();
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
