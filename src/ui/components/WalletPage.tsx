import { engine, useQuery } from '../engine';

/**
 * The wallet: the session's balance and how to add to it. Card and crypto deposits are a later capability;
 * until they exist a self-hoster credits a session with the admin command shown here.
 */
export function WalletPage() {
  const session = useQuery({ kind: 'session' });
  const data = session?.session;
  return (
    <div className="wallet">
      <h1>Wallet</h1>
      {data ? (
        <dl className="wallet-figures">
          <dt>USD balance</dt>
          <dd>${data.usd_balance}</dd>
          <dt>Nano balance</dt>
          <dd>{data.nano_balance} XNO</dd>
          <dt>Replies so far</dt>
          <dd>{data.numReplies}</dd>
          <dt>Session id</dt>
          <dd>
            <code>{data.id}</code>
          </dd>
        </dl>
      ) : (
        <p className="muted">Loading your session…</p>
      )}
      <h2>Adding funds</h2>
      <p>
        Free and built-in models work with no balance. Paid models need a balance above $0.00001. On a self-hosted
        Parley, the operator credits a session from the server:
      </p>
      <pre className="command">npm run admin -- credit {data?.id ?? 'SESSION_ID'} 5.00</pre>
      <button type="button" onClick={() => void engine((api) => api.refreshSession())}>
        Refresh balance
      </button>
    </div>
  );
}
