/**
 * The wallet (spec 001 section 2, /wallet): balances in USD and nano, the "Deposit" dialog (opened at once when the
 * caller asks: /wallet?deposit=open, e.g. from the insufficient-balance notice), recent deposits, the nano wallet,
 * auto-recharge and the recovery code. Everything goes through engine commands; nothing is kept here.
 */
import type { ActionResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { navigate, usePath } from '../router';
import { formatMoney, formatUsd, formatXno, nanoShown, usdExact } from '../../protocol/money-format';
import { networkLabel, shownPaymentStatus } from '../../protocol/payments';
import { DepositButton } from './DepositButton';
import { RecoveryCode } from './RecoveryCode';
import { AutoRecharge, FreeNano, NanoWallet, usePaymentSetup } from './WalletSections';

const STATUS_LABEL = { pending: 'Pending', completed: 'Completed', failed: 'Failed', expired: 'Expired' } as const;

export function WalletPage() {
  const session = useQuery({ kind: 'session' });
  const wallet = useQuery({ kind: 'wallet' });
  const path = usePath();
  const data = session?.session;
  const nano = data ? nanoShown(data) : false;
  const setup = usePaymentSetup();
  const nanoDeposits = setup === null ? null : setup.nanoDeposits;
  const askDeposit = new URLSearchParams(path.split('?')[1] ?? '').get('deposit') === 'open';
  return (
    <div className="wallet">
      <h1>Wallet</h1>
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

      {wallet && wallet.payments.length > 0 && (
        <section aria-labelledby="deposits-title">
          <h2 id="deposits-title">Recent deposits</h2>
          <table className="wallet-table">
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
        </section>
      )}

      <FreeNano />
      {(nano || nanoDeposits === true) && <NanoWallet address={data?.nanoDepositAddress ?? wallet?.nano.address ?? null} nano={wallet?.nano ?? null} deposits={nanoDeposits} />}
      <AutoRecharge settings={data?.recharge_settings ?? null} testPayments={setup === null ? null : setup.testPayments} />
      <RecoveryCode />

      {setup?.testPayments && (
        // An operator's command, shown only on a server that runs test payments (development); docs/gateway.md has it.
        <section aria-labelledby="operator-title">
          <h2 id="operator-title">Operator credit (test server)</h2>
          <p className="muted">
            On this test server the operator can credit this session: <code>npm run admin -- credit {data?.id ?? 'SESSION_ID'} 5.00</code>
          </p>
        </section>
      )}
    </div>
  );
}
