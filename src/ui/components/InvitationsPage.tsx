/**
 * Invitations (spec 001: the "Invitations" page; its layout is not shown, so ours): create a gift of money (the
 * amount is reserved from your balance), share its redeem link, change or delete it while it is unredeemed, and
 * redeem one you received (/invitations?redeem=CODE fills the code in). Errors are the engine's orange notices.
 */
import { useEffect, useId, useState } from 'react';
import type { ActionResult, MoneyResult } from '../../protocol/engine';
import type { Invitation } from '../../protocol/payments';
import { formatMoney, nanoShown } from '../../protocol/money-format';
import { engine, useQuery } from '../engine';
import { usePath } from '../router';

const DAY = 24 * 3_600_000;
const STATUS = { active: 'Active', redeemed: 'Redeemed', expired: 'Expired', blocked: 'Blocked' } as const;

function dateInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The end of the chosen day, local time. */
function fromDateInput(v: string): number {
  const t = new Date(`${v}T23:59:00`).getTime();
  return Number.isFinite(t) ? t : NaN;
}

export function redeemLink(code: string): string {
  return `${location.origin}/invitations?redeem=${encodeURIComponent(code)}`;
}

export function InvitationsPage() {
  const path = usePath();
  const fromLink = new URLSearchParams(path.split('?')[1] ?? '').get('redeem') ?? '';
  const [list, setList] = useState<Invitation[] | null>(null);
  const reload = () => void engine<MoneyResult<{ invitations: Invitation[] }>>((api) => api.listInvitations()).then((r) => setList(r.ok ? r.invitations : []));
  useEffect(reload, []);
  return (
    <div className="wallet invitations">
      <h1>Invitations</h1>
      <RedeemForm initial={fromLink} />
      <CreateForm onCreated={reload} />
      <section aria-labelledby="inv-list-title">
        <h2 id="inv-list-title">Your invitations</h2>
        {list === null ? (
          <p className="muted">Loading…</p>
        ) : list.length === 0 ? (
          <p className="muted">You have not created any invitation yet.</p>
        ) : (
          <ul className="invitation-list" aria-label="Your invitations">
            {list.map((i) => (
              <InvitationItem key={i.redeemCode} invitation={i} onChanged={reload} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function RedeemForm({ initial }: { initial: string }) {
  const [code, setCode] = useState(initial);
  const [done, setDone] = useState<string | null>(null);
  const id = useId();
  useEffect(() => setCode(initial), [initial]);
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(null);
        void engine<MoneyResult<{ amount: string; currency: string }>>((api) => api.redeemInvitation(code)).then((r) => r.ok && setDone(formatMoney(r.amount, r.currency)));
      }}
    >
      <h2>Redeem an invitation</h2>
      <label htmlFor={id}>Redeem code</label>
      <input id={id} value={code} autoComplete="off" spellCheck={false} onChange={(e) => setCode(e.target.value)} />
      <button type="submit">Redeem</button>
      {done && <p role="status">Redeemed: {done} added to your balance.</p>}
    </form>
  );
}

function CreateForm({ onCreated }: { onCreated(): void }) {
  const [amount, setAmount] = useState('1');
  const [currency, setCurrency] = useState<'USD' | 'XNO'>('USD');
  const session = useQuery({ kind: 'session' })?.session;
  // Nano is offered only where it is in use for this session; else invitations are in dollars.
  const nano = session ? nanoShown(session) : false;
  const [name, setName] = useState('');
  const [expires, setExpires] = useState(dateInput(Date.now() + 30 * DAY));
  const id = useId();
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        void engine<MoneyResult<{ invitation: Invitation }>>((api) => api.createInvitation({ amount: amount.trim(), currency, recipientName: name.trim(), expiresAt: fromDateInput(expires) })).then((r) => {
          if (!r.ok) return;
          // Made: the form is ready for the next one (issue 16: it kept the last invitation's fields).
          setAmount('1');
          setName('');
          setExpires(dateInput(Date.now() + 30 * DAY));
          onCreated();
        });
      }}
    >
      <h2>Create an invitation</h2>
      <p className="muted">The amount is set aside from your balance now, and comes back if you delete the invitation or it expires unredeemed.</p>
      <label htmlFor={`${id}-amount`}>Amount</label>
      <div className="amount-row">
        <input id={`${id}-amount`} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
        {nano ? (
          <select aria-label="Currency" value={currency} onChange={(e) => setCurrency(e.target.value === 'XNO' ? 'XNO' : 'USD')}>
            <option value="USD">USD</option>
            <option value="XNO">XNO</option>
          </select>
        ) : (
          <span className="muted">USD</span>
        )}
      </div>
      <label htmlFor={`${id}-name`}>Recipient name</label>
      <input id={`${id}-name`} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
      <label htmlFor={`${id}-expires`}>Expires on</label>
      <input id={`${id}-expires`} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
      <button type="submit" className="primary">
        Create invitation
      </button>
    </form>
  );
}

function InvitationItem({ invitation: i, onChanged }: { invitation: Invitation; onChanged(): void }) {
  const [editing, setEditing] = useState(false);
  const [amount, setAmount] = useState(i.amount.replace(/\.?0+$/, ''));
  const [name, setName] = useState(i.recipientName);
  const [expires, setExpires] = useState(dateInput(i.expiresAt));
  const [copied, setCopied] = useState(false);
  const id = useId();
  const label = i.recipientName ? `Invitation for ${i.recipientName}` : `Invitation ${i.redeemCode}`;
  return (
    <li className="invitation" data-status={i.status} aria-label={label}>
      <div className="invitation-head">
        <strong>
          {formatMoney(i.amount, i.currency)}
        </strong>
        <span>{i.recipientName || 'No name'}</span>
        <span className={`invitation-status status-${i.status}`}>{STATUS[i.status]}</span>
      </div>
      <div className="muted">
        Code <code>{i.redeemCode}</code> · expires {new Date(i.expiresAt).toLocaleDateString()}
      </div>
      {i.status === 'active' && !editing && (
        <div className="wallet-actions">
          <button
            type="button"
            onClick={() => {
              void navigator.clipboard?.writeText(redeemLink(i.redeemCode));
              setCopied(true);
            }}
          >
            {copied ? 'Link copied' : 'Copy redeem link'}
          </button>
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" onClick={() => void engine<ActionResult>((api) => api.deleteInvitation(i.redeemCode)).then((r) => r.ok && onChanged())}>
            Delete
          </button>
        </div>
      )}
      {editing && (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void engine<MoneyResult<{ invitation: Invitation }>>((api) =>
              api.updateInvitation(i.redeemCode, { amount: amount.trim(), recipientName: name.trim(), expiresAt: fromDateInput(expires) }),
            ).then((r) => {
              if (r.ok) {
                setEditing(false);
                onChanged();
              }
            });
          }}
        >
          <label htmlFor={`${id}-a`}>Amount ({i.currency})</label>
          <input id={`${id}-a`} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
          <label htmlFor={`${id}-n`}>Recipient name</label>
          <input id={`${id}-n`} value={name} onChange={(e) => setName(e.target.value)} />
          <label htmlFor={`${id}-e`}>Expires on</label>
          <input id={`${id}-e`} type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
          <div className="wallet-actions">
            <button type="submit">Save</button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </li>
  );
}
