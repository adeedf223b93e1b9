/** The contents of the wallet's sections (WalletPage.tsx): the nano wallet, the free nano and auto-recharge (spec 001). */
import { useEffect, useId, useState } from 'react';
import type { SessionData } from '../../protocol/api';
import type { ActionResult, MoneyResult, WalletView } from '../../protocol/engine';
import { formatXno } from '../../protocol/money-format';
import { ACCOUNT_TEXT } from '../../protocol/money-text';
import { FAUCET_TEXT, type FaucetStatus } from '../../protocol/faucet';
import { engine, useQuery } from '../engine';

const SOCKET_LABEL = { idle: 'not connected', connecting: 'connecting', connected: 'connected', closed: 'closed', error: 'error' } as const;

/** '$0.85', '$1.00', '$1.234567': at least 2 decimals, at most 6 (amounts are floored to 6, spec 001 section 9). */
export function formatNanoPrice(price: number): string {
  const floored = Math.floor(price * 1e6 + 1e-6) / 1e6;
  return floored.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6, useGrouping: false });
}

/** The nano section, shown where nano is in use for the session or set up on the server (WalletPage). */
export function NanoWallet({ address, nano, deposits }: { address: string | null; nano: WalletView['nano'] | null; deposits: boolean | null }) {
  const [rep, setRep] = useState('');
  const [current, setCurrent] = useState<string | null>(null);
  const [receivable, setReceivable] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const repId = useId();
  /** USD per XNO (spec 001 section 7: the engine falls back to 1 when the gateway gives no price). */
  const [price, setPrice] = useState<number | null>(null);

  useEffect(() => {
    void engine<number>((api) => api.nanoPrice()).then(setPrice);
  }, []);

  useEffect(() => {
    if (!address) return;
    void engine<MoneyResult<{ representative: string }>>((api) => api.getRepresentative()).then((r) => r.ok && setCurrent(r.representative));
  }, [address]);

  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await fn();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="wallet-section">
      {price !== null && <p className="nano-price">1 XNO ≈ ${formatNanoPrice(price)}</p>}
      {address ? (
        <>
          <p>
            Deposit address: <code className="nano-address">{address}</code>
          </p>
          <p className="muted" role="status">
            Nano network: {SOCKET_LABEL[nano?.state ?? 'idle']}
          </p>
        </>
      ) : deposits ? (
        <button type="button" disabled={busy} onClick={() => void run(() => engine<unknown>((api) => api.nanoDepositAddress()))}>
          Show deposit address
        </button>
      ) : (
        <p className="muted">{deposits === null ? '…' : 'Nano deposits are not set up on this server. Nano from invitations can still be converted to USD.'}</p>
      )}
      <div className="wallet-actions">
        <button type="button" disabled={busy} onClick={() => void run(() => engine<unknown>((api) => api.convertNanoToUsd()))}>
          Convert nano to USD
        </button>
        {address && (
          <button
            type="button"
            disabled={busy}
            onClick={() => void run(async () => {
              const r = await engine<MoneyResult<{ receivable: string }>>((api) => api.checkReceivables());
              if (r.ok) setReceivable(r.receivable);
            })}
          >
            Check receivables
          </button>
        )}
      </div>
      {receivable !== null && <p role="status">Receivable: {formatXno(receivable)}</p>}
      {address && (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              const r = await engine<MoneyResult<{ representative: string }>>((api) => api.changeRepresentative(rep));
              if (r.ok) {
                setCurrent(r.representative);
                setRep('');
              }
            });
          }}
        >
          <label htmlFor={repId}>Representative</label>
          <p className="muted">Current: {current ? <code>{current}</code> : '…'}</p>
          <input id={repId} value={rep} placeholder="nano_…" onChange={(e) => setRep(e.target.value)} />
          <button type="submit" disabled={busy || rep.trim().length < 60}>
            Change representative
          </button>
        </form>
      )}
    </div>
  );
}

/**
 * The nano faucet (spec 001 sections 6 and 9), shown only where the operator turned it on: one free claim per
 * session (src/server/nano/faucet.ts). The balance and the notice come from the engine.
 */
export function FreeNano() {
  const [status, setStatus] = useState<FaucetStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const sessionId = useQuery({ kind: 'session' })?.session?.id ?? null;
  useEffect(() => {
    if (sessionId === null) return;
    void engine<FaucetStatus | null>((api) => api.faucetStatus()).then(setStatus);
  }, [sessionId]);
  if (!status?.enabled) return null;
  const claim = async () => {
    setBusy(true);
    await engine<MoneyResult<{ amount: string }>>((api) => api.claimFaucet());
    setStatus(await engine<FaucetStatus | null>((api) => api.faucetStatus()));
    setBusy(false);
  };
  return (
    <section aria-labelledby="faucet-title" className="wallet-section">
      <h3 id="faucet-title">Free nano</h3>
      {status.claimed ? (
        <p className="muted">This session has had its free {status.amount} XNO.</p>
      ) : status.empty ? (
        <p className="muted">{FAUCET_TEXT.FAUCET_EMPTY}</p>
      ) : (
        <>
          <p className="muted">This server gives each session {status.amount} XNO to try paid models, once.</p>
          <div className="wallet-actions">
            <button type="button" disabled={busy} onClick={() => void claim()}>
              Claim {status.amount} free XNO
            </button>
          </div>
        </>
      )}
    </section>
  );
}

export function AutoRecharge({ settings, testPayments }: { settings: SessionData['recharge_settings'] | null; testPayments: boolean | null }) {
  const [enabled, setEnabled] = useState(false);
  const [threshold, setThreshold] = useState('');
  const [target, setTarget] = useState('');
  const [saved, setSaved] = useState(false);
  const id = useId();
  useEffect(() => {
    if (!settings) return;
    setEnabled(settings.enabled);
    setThreshold(settings.enabled ? trim(settings.threshold) : '5');
    setTarget(settings.enabled ? trim(settings.amount) : '20');
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the form resets when the saved values change, not when a new settings object arrives with the same values
  }, [settings?.enabled, settings?.threshold, settings?.amount]);
  return (
    <div className="wallet-section">
      {settings?.pending && /^(\/(?!\/)|https?:\/\/)/.test(settings.pending.paymentLink) && (
        // A top-up through a checkout (the test provider) is credited only once it is paid there.
        <p role="status" className="recharge-pending">
          {`A top-up of $${trim(settings.pending.amount)} is waiting for your payment. `}
          <a href={settings.pending.paymentLink} target="_blank" rel="noopener noreferrer">
            Pay the top-up
          </a>
        </p>
      )}
      <form
        className="recharge-form"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          void engine<ActionResult>((api) => api.setRechargeSettings({ enabled, threshold: threshold.trim() || '0', target: target.trim() || '0' })).then((r) => setSaved(r.ok));
        }}
      >
        <div className="settings-rows">
          <div className="setting setting-toggle">
            <input id={`${id}-on`} type="checkbox" role="switch" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
            <label htmlFor={`${id}-on`}>Auto-recharge</label>
            {testPayments !== null && <p className="setting-hint muted recharge-payer">{ACCOUNT_TEXT.rechargePayer(testPayments)}</p>}
          </div>
          <div className="setting">
            <label htmlFor={`${id}-threshold`}>When the USD balance falls below ($)</label>
            <input id={`${id}-threshold`} inputMode="decimal" value={threshold} onChange={(e) => setThreshold(e.target.value)} />
          </div>
          <div className="setting">
            <label htmlFor={`${id}-target`}>Top it up to ($)</label>
            <input id={`${id}-target`} inputMode="decimal" value={target} onChange={(e) => setTarget(e.target.value)} />
          </div>
        </div>
        <div className="wallet-actions">
          <button type="submit">Save auto-recharge</button>
          {saved && <p role="status">Saved.</p>}
        </div>
      </form>
    </div>
  );
}

const trim = (s: string): string => s.replace(/\.?0+$/, '') || '0';
