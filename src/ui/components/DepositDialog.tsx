/**
 * The "Deposit" dialog (spec 001 section 2: deposit modal with numbered payment steps): 1. choose a method (logo,
 * name, ticker, colour, symbol; methods no configured provider takes are grouped, collapsed, under "Not available on this server"), 2. the amount (the
 * section 9 default, the limits from GET /api/transaction/limits/{ticker}, every section 5 message, the USD value),
 * 3. pay (the provider's checkout in a new tab; nano: the session's own deposit address). It closes itself when the
 * deposit completes (the engine polls it, spec 001 section 4). The button and the dialog element are ./DepositButton.tsx.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { DEPOSIT_TEXT, validateDeposit } from '../../protocol/money-text';
import type { ActionResult, MoneyResult, NanoReceiving } from '../../protocol/engine';
import { currencyOptions, DEPOSIT_METHODS, FIAT_CURRENCIES, fiatEquivalent, networkLabel, usdEquivalent, type DepositMethod, type FiatCurrency, type PaymentLimits, type PaymentMethodsResponse, type PaymentTransaction } from '../../protocol/payments';
import { engine, useQuery } from '../engine';
import { MethodLogo } from './MethodLogo';
import { usePaymentMethods } from './payment-setup';

type Step = 'method' | 'amount' | 'pay';

/** The dialog's content (a lazy chunk: ./DepositButton.tsx loads it when the dialog opens). */
export function DepositSteps({ onClose }: { onClose(): void }) {
  const wallet = useQuery({ kind: 'wallet' });
  const available = usePaymentMethods();
  const [method, setMethod] = useState<DepositMethod | null>(null);
  const [step, setStep] = useState<Step>('method');
  const [paymentId, setPaymentId] = useState<string | null>(null);
  const depositsBefore = useRef<number | null>(null);

  // The payment store's transactionData (the engine's, shared by every tab): shown once this dialog made or resumed it.
  const transaction = wallet?.transactionData ?? null;
  const payment = transaction && transaction.id === paymentId ? transaction : null;
  const resumable = transaction?.status === 'pending' && transaction.id !== paymentId ? transaction : null;
  // Completed refreshes the session and closes the dialog (spec 001 section 4); so does a nano deposit credited.
  const lastNano = wallet?.nano.lastDeposit?.at ?? 0;
  useEffect(() => {
    if (step === 'pay' && payment?.status === 'completed') onClose();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- closes when the status becomes completed, not on each render's new onClose
  }, [payment?.status]);
  useEffect(() => {
    if (step === 'pay' && method?.ticker === 'XNO' && depositsBefore.current !== null && lastNano > depositsBefore.current) onClose();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- closes when a new nano deposit arrives, not when the step or method change
  }, [lastNano]);

  const providerOf = (m: DepositMethod) => available?.methods.find((x) => x.id === m.id)?.provider ?? null;

  return (
    <div className="deposit">
      <header className="dialog-header">
        <h2>Deposit</h2>
        <button type="button" className="dialog-close" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      <ol className="deposit-steps" aria-label="Payment steps">
        {(['method', 'amount', 'pay'] as const).map((s, i) => (
          <li key={s} aria-current={step === s ? 'step' : undefined} className={step === s ? 'current' : ''}>
            <span className="step-number">{i + 1}</span> {s === 'method' ? 'Method' : s === 'amount' ? 'Amount' : 'Pay'}
          </li>
        ))}
      </ol>
      {available?.testPayments && <p className="deposit-note">Test payments: no real money moves on this server.</p>}
      {step === 'method' && resumable && (
        <div className="deposit-resume" role="group" aria-label="Deposit waiting for payment">
          <p className="muted">
            Your deposit of {resumable.amount} {resumable.ticker} is waiting for payment.
          </p>
          <button
            type="button"
            onClick={() => {
              const m = DEPOSIT_METHODS.find((x) => x.ticker === resumable.ticker && (x.network ?? null) === resumable.network);
              if (!m) return;
              setMethod(m);
              setPaymentId(resumable.id);
              setStep('pay');
            }}
          >
            Back to this deposit
          </button>
        </div>
      )}
      {step === 'method' && (
        <MethodList
          loading={available === null}
          providerOf={providerOf}
          onChoose={(m) => {
            setMethod(m);
            setStep(m.ticker === 'XNO' ? 'pay' : 'amount');
            depositsBefore.current = lastNano;
          }}
        />
      )}
      {step === 'amount' && method && (
        <AmountStep
          method={method}
          methods={available?.methods ?? []}
          onBack={() => setStep('method')}
          onMethod={setMethod}
          onCreated={(id) => {
            setPaymentId(id);
            setStep('pay');
          }}
        />
      )}
      {step === 'pay' && method?.ticker === 'XNO' && <NanoStep onBack={() => setStep('method')} />}
      {step === 'pay' && method && method.ticker !== 'XNO' && payment && (
        <div className="deposit-pay">
          <dl className="deposit-summary" aria-label="Deposit summary">
            <dt>Amount</dt>
            <dd>
              {payment.amount} {payment.ticker}
            </dd>
            {payment.network && (
              <>
                <dt>Network</dt>
                <dd>{networkLabel(payment.network)}</dd>
              </>
            )}
            {payment.usdEquivalent && (
              <>
                <dt>In USD</dt>
                <dd>≈ ${payment.usdEquivalent}</dd>
              </>
            )}
          </dl>
          {payment.status === 'pending' && (
            <>
              <a className="button primary" href={payment.paymentLink} target="_blank" rel="noopener noreferrer">
                Open checkout
              </a>
              <p className="muted" role="status">
                Waiting for your payment… This closes by itself once it is received.
              </p>
            </>
          )}
          {payment.status === 'failed' && <p role="alert">{DEPOSIT_TEXT.transactionFailed}</p>}
          {payment.status === 'expired' && <p role="status">The payment expired. Nothing was charged.</p>}
          {payment.status !== 'pending' && (
            <button type="button" onClick={() => setStep('amount')}>
              Try again
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/**
 * The methods a configured provider takes, then the others grouped under "Not available on this server", collapsed
 * (issue 16: 20 of 34 greyed among the usable ones). A button's name is its visible text (name and ticker).
 */
function MethodList({ loading, providerOf, onChoose }: { loading: boolean; providerOf(m: DepositMethod): string | null; onChoose(m: DepositMethod): void }) {
  if (loading) return <p className="muted" role="status">Loading payment methods…</p>;
  const usable = DEPOSIT_METHODS.filter((m) => providerOf(m) !== null);
  const others = DEPOSIT_METHODS.filter((m) => providerOf(m) === null);
  const face = (m: DepositMethod) => (
    <>
      <MethodLogo method={m} />
      <span className="method-name">{m.name}</span>{' '}
      <span className="method-ticker">{m.ticker}</span>
    </>
  );
  return (
    <>
      {usable.length === 0 && <p className="muted">No payment method is set up on this server.</p>}
      <ul className="method-list" aria-label="Payment methods">
        {usable.map((m) => (
          <li key={m.id}>
            <button type="button" className="method" onClick={() => onChoose(m)}>
              {face(m)}
            </button>
          </li>
        ))}
      </ul>
      {others.length > 0 && (
        <details className="methods-unavailable">
          <summary>Not available on this server ({others.length})</summary>
          <ul className="method-list" aria-label="Not available on this server">
            {others.map((m) => (
              <li key={m.id} className="method method-off">
                {face(m)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function AmountStep({ method, methods, onBack, onCreated, onMethod }: { method: DepositMethod; methods: PaymentMethodsResponse['methods']; onBack(): void; onCreated(id: string): void; onMethod(m: DepositMethod): void }) {
  const [limits, setLimits] = useState<PaymentLimits | null | undefined>(undefined);
  const [value, setValue] = useState(method.defaultAmount ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [rates, setRates] = useState<{ eurPerUsd: number; gbpPerUsd: number } | null>(null);
  const selected: FiatCurrency = useQuery({ kind: 'wallet' })?.selectedCurrency ?? 'USD';
  // The networks the coin is offered on here, from the methods the dialog already has.
  const options = useMemo(() => currencyOptions(method.ticker, methods), [method.ticker, methods]);

  // Changing the ticker reloads the minimum amount and the fiat rates (spec 001 section 4).
  useEffect(() => {
    setLimits(undefined);
    void engine((api) => api.paymentLimits(method.ticker)).then(setLimits);
    void engine((api) => api.fiatRates()).then((r) => setRates(r.state === 'loaded' ? { eurPerUsd: r.eurPerUsd, gbpPerUsd: r.gbpPerUsd } : null));
  }, [method.ticker]);

  const message = limits === undefined ? null : validateDeposit(method.ticker, value, limits);
  const usd = useMemo(() => usdEquivalent(value, limits ?? null), [value, limits]);
  const shown = fiatEquivalent(usd, selected, rates);
  const eurPerUsd = rates?.eurPerUsd ?? null;

  async function submit() {
    setBusy(true);
    setError(null);
    const r = await engine<MoneyResult<{ transaction: PaymentTransaction }>>((api) => api.createPayment(method.ticker, value, method.network));
    setBusy(false);
    if (r.ok) onCreated(r.transaction.id);
    else setError(r.error);
  }

  return (
    <form
      className="deposit-amount"
      onSubmit={(e) => {
        e.preventDefault();
        if (!message && !busy) void submit();
      }}
    >
      <div className="method-chosen">
        <MethodLogo method={method} /> {method.name}
      </div>
      {options.length > 1 && method.network && (
        <>
          <label htmlFor="deposit-network">Network</label>
          <select
            id="deposit-network"
            value={method.id}
            onChange={(e) => {
              const next = options.find((m) => m.id === e.target.value);
              if (next) onMethod(next);
            }}
          >
            {options.map((m) => (
              <option key={m.id} value={m.id}>
                {networkLabel(m.network ?? '')}
              </option>
            ))}
          </select>
        </>
      )}
      <label htmlFor="deposit-amount">Amount ({method.ticker})</label>
      <div className="amount-row">
        <span className="amount-symbol">{method.symbol}</span>
        <input
          id="deposit-amount"
          inputMode="decimal"
          autoComplete="off"
          value={value}
          aria-invalid={message !== null}
          aria-describedby="deposit-amount-hint"
          onChange={(e) => setValue(e.target.value)}
        />
      </div>
      <p id="deposit-amount-hint" className={message ? 'setting-error' : 'muted'} role={message ? 'alert' : undefined}>
        {limits === undefined
          ? 'Loading limits…'
          : (message ??
            (limits
              ? `From ${limits.minimum} to ${limits.maximum} ${method.ticker}${shown ? ` · about ${shown}` : ''}${method.ticker === 'EUR' && eurPerUsd ? ` · 1 USD = ${eurPerUsd} EUR` : ''}`
              : ''))}
      </p>
      <label className="deposit-fiat">
        Value in{' '}
        <select value={selected} onChange={(e) => {
            const c = FIAT_CURRENCIES.find((x) => x === e.target.value);
            if (c) void engine<ActionResult>((api) => api.setSelectedCurrency(c));
          }}>
          {FIAT_CURRENCIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p className="setting-error" role="alert">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" onClick={onBack}>
          Back
        </button>
        <button type="submit" className="primary" disabled={message !== null || busy || limits === undefined}>
          {busy ? 'Creating…' : 'Continue to payment'}
        </button>
      </div>
    </form>
  );
}

function NanoStep({ onBack }: { onBack(): void }) {
  const wallet = useQuery({ kind: 'wallet' });
  const session = useQuery({ kind: 'session' });
  const [address, setAddress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const returnAddress = session?.session?.nanoReturnAddress ?? null;
  const receiving = wallet?.nanoReceiving ?? 'deposit';
  useEffect(() => {
    void engine<MoneyResult<{ address: string }>>((api) => api.nanoDepositAddress()).then((r) => (r.ok ? setAddress(r.address) : setError(r.error)));
  }, []);
  return (
    <div className="deposit-pay">
      <NanoReceivingChoice receiving={receiving} returnAddress={returnAddress} />
      {receiving === 'return' && returnAddress && (
        <p className="muted">
          Your return address <code className="nano-address">{returnAddress}</code> is kept with your session for nano sent back to you. To add to
          your balance, send to the deposit address below.
        </p>
      )}
      {error && <p className="setting-error">{error}</p>}
      {address && (
        <>
          <p>Send any amount of XNO (at least 0.000001) to your deposit address:</p>
          <code className="nano-address">{address}</code>
          <div className="dialog-actions">
            <button type="button" onClick={() => void navigator.clipboard?.writeText(address)}>
              Copy address
            </button>
            <a className="button" href={`nano:${address}`}>
              Open in wallet app
            </a>
          </div>
          <p className="muted" role="status">
            Connection to the nano network: {wallet?.nano.state ?? 'idle'}. Your balance updates when the send is confirmed.
          </p>
        </>
      )}
      <button type="button" onClick={onBack}>
        Back
      </button>
    </div>
  );
}

/** The nano receiving flag (spec 001 section 4): the session's deposit address, or the user's own return address. */
function NanoReceivingChoice({ receiving, returnAddress }: { receiving: NanoReceiving; returnAddress: string | null }) {
  const [typed, setTyped] = useState(returnAddress ?? '');
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const choose = async (to: NanoReceiving, addr?: string) => {
    setBusy(true);
    setError(null);
    const r = await engine<ActionResult>((api) => api.setNanoReceiving(to, addr));
    setBusy(false);
    if (r.ok) setEditing(false);
    else setError(r.error);
  };
  const showForm = editing || (receiving === 'deposit' ? false : !returnAddress);
  return (
    <fieldset className="nano-receiving">
      <legend>Receive nano at</legend>
      <label>
        <input type="radio" name="nano-receiving" checked={receiving === 'deposit' && !editing} disabled={busy} onChange={() => void choose('deposit').then(() => setEditing(false))} />
        This session&apos;s deposit address
      </label>
      <label>
        <input
          type="radio"
          name="nano-receiving"
          checked={receiving === 'return' || editing}
          disabled={busy}
          onChange={() => (returnAddress ? void choose('return', returnAddress) : setEditing(true))}
        />
        My own nano address (return address)
      </label>
      {showForm && (
        <form
          className="nano-return-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!busy) void choose('return', typed);
          }}
        >
          <label htmlFor="nano-return-address">Your nano address</label>
          <input id="nano-return-address" autoComplete="off" spellCheck={false} placeholder="nano_…" value={typed} onChange={(e) => setTyped(e.target.value)} aria-invalid={error !== null} />
          <button type="submit" className="primary" disabled={busy || typed.trim() === ''}>
            Save address
          </button>
        </form>
      )}
      {receiving === 'return' && returnAddress && !showForm && (
        <button type="button" className="link" onClick={() => setEditing(true)}>
          Change return address
        </button>
      )}
      {error && (
        <p className="setting-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
