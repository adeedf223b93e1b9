import { useQuery } from '../engine';

/** Amounts are shown floored to 6 decimals (spec 001 section 9); the gateway already sends them that way. */
export function Balance() {
  const session = useQuery({ kind: 'session' });
  const data = session?.session;
  return (
    <section className="balance" aria-label="Balance">
      {data ? (
        // The session's display currency comes first (spec 001 section 3, displayCurrency).
        <>
          {data.displayCurrency === 'XNO' ? (
            <>
              <span className="balance-nano">{data.nano_balance} XNO</span>
              <span className="balance-sep"> · </span>
              <span className="balance-usd">${data.usd_balance}</span>
            </>
          ) : (
            <>
              <span className="balance-usd">${data.usd_balance}</span>
              <span className="balance-sep"> · </span>
              <span className="balance-nano">{data.nano_balance} XNO</span>
            </>
          )}
        </>
      ) : (
        <span className="muted">{session?.error ? 'Balance unavailable' : 'Loading balance…'}</span>
      )}
    </section>
  );
}
