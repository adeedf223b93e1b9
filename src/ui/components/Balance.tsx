import { formatUsd, formatXno, nanoShown, usdExact } from '../../protocol/money-format';
import { useQuery } from '../engine';

/**
 * The sidebar balance in dollars ("$7.99", full figure on hover); nano beside it only where nano is in use for this
 * session (chosen as display currency, held, or a deposit address made), the display currency first (spec 001
 * section 3, displayCurrency).
 */
export function Balance() {
  const session = useQuery({ kind: 'session' });
  const data = session?.session;
  if (!data) {
    return (
      <section className="balance" aria-label="Balance">
        <span className="muted">{session?.error ? 'Balance unavailable' : 'Loading balance…'}</span>
      </section>
    );
  }
  const usd = (
    <span className="balance-usd" title={usdExact(data.usd_balance)}>
      {formatUsd(data.usd_balance)}
    </span>
  );
  const nano = nanoShown(data) ? <span className="balance-nano">{formatXno(data.nano_balance)}</span> : null;
  const sep = <span className="balance-sep"> · </span>;
  return (
    <section className="balance" aria-label="Balance">
      {nano === null ? usd : data.displayCurrency === 'XNO' ? <>{nano}{sep}{usd}</> : <>{usd}{sep}{nano}</>}
    </section>
  );
}
