/**
 * The wallet's "Recovery code" section (ours; docs/gateway.md "Sessions"): make a code (shown once), open a session
 * with one, and sign every other browser out. A new code signs the other browsers out too (issue 15 item 9: a
 * leaked code is revoked by making a new one); both ask first, in plain words.
 */
import { useEffect, useId, useState } from 'react';
import type { ActionResult, MoneyResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { ConfirmDialog } from './ConfirmDialog';

type Asking = 'new-code' | 'sign-out' | null;

export function RecoveryCode() {
  const [code, setCode] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [restored, setRestored] = useState(false);
  // The money room's account-merge-check: the same answer in every tab, and the prompt's (Banners.tsx).
  const hasCode = useQuery({ kind: 'wallet' })?.account?.hasRecoveryCode ?? null;
  const [asking, setAsking] = useState<Asking>(null);
  const [busy, setBusy] = useState(false);
  const [signedOut, setSignedOut] = useState(false);
  const id = useId();
  useEffect(() => {
    void engine((api) => api.accountMergeCheck());
  }, [restored]);

  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    try {
      await fn();
    } finally {
      setBusy(false);
      setAsking(null);
    }
  };
  const makeCode = () =>
    act(async () => {
      const r = await engine<MoneyResult<{ code: string }>>((api) => api.createRecoveryCode());
      if (r.ok) {
        setCode(r.code);
        setSignedOut(false);
      }
    });
  const signOutOthers = () =>
    act(async () => {
      const r = await engine<ActionResult>((api) => api.signOutOtherBrowsers());
      setSignedOut(r.ok);
    });

  return (
    <div className="wallet-section">
      <p className="muted">
        Your balance lives with this browser&apos;s session. A recovery code opens the same session, balance and deposit address in another browser.
        It is shown once. A new code replaces the old one and signs out every other browser that has this session.
      </p>
      {code ? (
        <div className="recovery-code" role="status">
          <p>Save this code somewhere safe. It will not be shown again:</p>
          <code aria-label="Your recovery code">{code}</code>
          <p className="muted">The old code no longer works, and every other browser that had this session is signed out.</p>
          <div className="wallet-actions">
            <button type="button" onClick={() => void navigator.clipboard?.writeText(code)}>
              Copy code
            </button>
            <button type="button" onClick={() => setCode(null)}>
              I saved it
            </button>
          </div>
        </div>
      ) : (
        <div className="wallet-actions">
          <button type="button" disabled={busy} onClick={() => (hasCode ? setAsking('new-code') : void makeCode())}>
            {hasCode ? 'Create a new recovery code' : 'Create recovery code'}
          </button>
          <button type="button" disabled={busy} onClick={() => setAsking('sign-out')}>
            Sign out other browsers
          </button>
        </div>
      )}
      {signedOut && (
        <p role="status" className="muted">
          Other browsers are signed out. This browser stays signed in.
        </p>
      )}
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setRestored(false);
          void engine<ActionResult>((api) => api.recoverSession(typed)).then((r) => {
            setRestored(r.ok);
            if (r.ok) setTyped('');
          });
        }}
      >
        <label htmlFor={`${id}-input`}>Restore a session with its recovery code</label>
        <input id={`${id}-input`} autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="XXXXX-XXXXX-XXXXX-XXXXX-XXXXX" />
        <button type="submit" disabled={typed.trim().length < 25}>
          Restore session
        </button>
        {restored && <p role="status">Session restored.</p>}
      </form>

      <ConfirmDialog
        open={asking === 'new-code'}
        title="Create a new recovery code?"
        confirmLabel="Create a new code"
        busy={busy}
        onConfirm={() => void makeCode()}
        onCancel={() => setAsking(null)}
      >
        <p>The old code stops working, and every other browser that has this session is signed out: it loses the balance but keeps its conversations.</p>
        <p>This browser stays signed in.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === 'sign-out'}
        title="Sign out other browsers?"
        confirmLabel="Sign out other browsers"
        busy={busy}
        onConfirm={() => void signOutOthers()}
        onCancel={() => setAsking(null)}
      >
        <p>Every other browser that has this session is signed out: it loses the balance but keeps its conversations. This browser stays signed in.</p>
        <p>Your recovery code keeps working. If someone else may have it, create a new code instead: that signs the other browsers out too.</p>
      </ConfirmDialog>
    </div>
  );
}
