/**
 * The wallet (spec 001 section 2, /wallet), in sections (issue 16), each at its own address (/wallet/history):
 * Overview (the balance in USD and nano, the "Deposit" dialog, opened at once when the caller asks: /wallet?deposit=open, e.g. from
 * the insufficient-balance notice; the free nano), Nano wallet (where nano is set up or held), Auto-recharge,
 * History (recent deposits) and Recovery code. Everything goes through engine commands; nothing is kept here.
 */
import type { ActionResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { navigate, usePath } from '../router';
import { formatMoney, formatUsd, formatXno, nanoShown, usdExact } from '../../protocol/money-format';
import { networkLabel, shownPaymentStatus } from '../../protocol/payments';
import { DepositButton } from './DepositButton';
import { RecoveryCode } from './RecoveryCode';
import { AutoRecharge, FreeNano, NanoWallet } from './WalletSections';
import { usePaymentSetup } from './payment-setup';
import { SectionedPage, type PageSection } from './SectionedPage';
import { Coins, History, KeyRound, RefreshCw, Wallet } from 'lucide-react';
import type { WalletView } from '../../protocol/engine';

const STATUS_LABEL = { pending: 'Pending', completed: 'Completed', failed: 'Failed', expired: 'Expired' } as const;

export function WalletPage({ section }: { section: string | null }) {
  const session = useQuery({ kind: 'session' });
  const wallet = useQuery({ kind: 'wallet' });
  const path = usePath();
  const data = session?.session;
  const nano = data ? nanoShown(data) : false;
  const setup = usePaymentSetup();
  const nanoDeposits = setup === null ? null : setup.nanoDeposits;
  const askDeposit = new URLSearchParams(path.split('?')[1] ?? '').get('deposit') === 'open';
  // Nano only where it is held or set up; a link to it waits (rather than falling back) while the server is asked.
  const nanoSection = nano || nanoDeposits === true || (section === 'nano' && (setup === null || !data));

  const balance = (
    <>
      {data ? (
        <dl className="wallet-figures">
          <dt>USD balance</dt>
          <dd title={usdExact(data.usd_balance)}>{formatUsd(data.usd_balance)}</dd>
          {nano && (
            <>
              <dt>Nano balance</dt>
              <dd>{formatXno(data.nano_balance)}</dd>
              <dt>Paying in</dt>
              <dd>{data.currency === 'USD' ? 'USD' : 'XNO (no USD balance)'}</dd>
            </>
          )}
          {(nano || nanoDeposits === true) && (
            <>
              <dt>
                <label htmlFor="display-currency">Show amounts in</label>
              </dt>
              <dd>
                <select
                  id="display-currency"
                  value={data.displayCurrency}
                  onChange={(e) => {
                    // Read now: the engine call runs later, when React has put the controlled value back until the session says otherwise.
                    const currency = e.target.value === 'XNO' ? 'XNO' : 'USD';
                    void engine<ActionResult>((api) => api.setDisplayCurrency(currency));
                  }}
                >
                  <option value="USD">USD</option>
                  <option value="XNO">XNO</option>
                </select>
              </dd>
            </>
          )}
          <dt>Replies so far</dt>
          <dd>{data.numReplies}</dd>
        </dl>
      ) : (
        <p className="muted">Loading your session…</p>
      )}
      <div className="wallet-actions">
        <DepositButton openInitially={askDeposit} onOpened={() => navigate('/wallet', { replace: true })} />
        <button type="button" onClick={() => void engine((api) => api.refreshSession())}>
          Refresh balance
        </button>
      </div>
      <FreeNano />
    </>
  );

  const sections: PageSection[] = [
    { id: 'overview', title: 'Overview', icon: Wallet, description: 'What you have to spend on paid models, and adding more.', content: balance },
    ...(nanoSection
      ? [
          {
            id: 'nano',
            title: 'Nano wallet',
            icon: Coins,
            description: 'Nano (XNO) sent to your deposit address is added to your balance.',
            content: data && setup !== null ? <NanoWallet address={data.nanoDepositAddress ?? wallet?.nano.address ?? null} nano={wallet?.nano ?? null} deposits={nanoDeposits} /> : <p className="muted">Loading…</p>,
          },
        ]
      : []),
    {
      id: 'auto-recharge',
      title: 'Auto-recharge',
      icon: RefreshCw,
      description: 'Top up your USD balance by itself when it runs low.',
      content: <AutoRecharge settings={data?.recharge_settings ?? null} testPayments={setup === null ? null : setup.testPayments} />,
    },
    { id: 'history', title: 'History', icon: History, description: 'Your recent deposits and where they stand.', content: <DepositHistory wallet={wallet} /> },
    { id: 'recovery', title: 'Recovery code', icon: KeyRound, description: 'Keep your balance when you change browsers or clear site data.', content: <RecoveryCode /> },
  ];
  return <SectionedPage title="Wallet" base="/wallet" current={section} sections={sections} className="wallet" />;
}

/** The last 10 deposits, newest first; a checkout left past its 30 minutes shows as Expired. */
function DepositHistory({ wallet }: { wallet: WalletView | undefined }) {
  if (!wallet) return <p className="muted">Loading…</p>;
  if (wallet.payments.length === 0) return <p className="muted">No deposits yet. Deposits you make in this browser session are listed here.</p>;
  return (
    <div className="wallet-table-scroll">
      <table className="wallet-table" aria-label="Recent deposits">
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Amount</th>
            <th scope="col">In USD</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {wallet.payments.slice(0, 10).map((p) => {
            const status = shownPaymentStatus(p, Date.now());
            return (
              <tr key={p.id} data-status={status}>
                <td>{new Date(p.startedAt).toLocaleString()}</td>
                <td>
                  {formatMoney(p.amount, p.ticker)}
                  {p.network ? ` on ${networkLabel(p.network)}` : ''}
                </td>
                <td>{p.usdEquivalent ? `≈ ${formatUsd(p.usdEquivalent)}` : '–'}</td>
                <td>{STATUS_LABEL[status]}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
