/**
 * The built-in test provider: a checkout page served by this gateway with three buttons, "Pay", "Fail" and
 * "Expire", so deposits work end to end on a fresh machine with no account anywhere. No real money moves: it is
 * on by default only while no real provider is configured (PARLEY_TEST_PAYMENTS, payments/config.ts), and its page
 * says so. The page runs no script (its own strict CSP); the buttons post a form carrying the transaction's
 * checkout token, so another site cannot settle someone's transaction.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { readLimitedText, type AppEnv } from '../http';
import { formatUsdMicro } from '../money/amounts';
import type { PaymentStatus, Ticker } from '../../protocol/payments';
import { getTx, markProviderPaid, settlePayment, type SettleDeps } from './store';
import type { PaymentProvider, TxRecord } from './types';

export function testProvider(supported: (t: Ticker) => boolean): PaymentProvider {
  return {
    name: 'test',
    supports: supported,
    create: async ({ tx, origin }) => ({ providerRef: tx.id, paymentLink: `${origin}/pay/test/${tx.id}` }),
    // The checkout page settles directly, so the stored status is the provider's view.
    status: async (tx: TxRecord) => tx.status,
    // A top-up is a checkout like a deposit: credited only when its Pay button is pressed (issue 15: it used to
    // complete at once, so a $0 session that turned auto-recharge on had its target credited with no click).
    recharge: async (tx, _saved, origin) => ({ status: 'pending', providerRef: tx.id, paymentLink: `${origin}/pay/test/${tx.id}` }),
  };
}

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const escape = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title><style>
body{font:16px/1.5 system-ui,sans-serif;background:#111418;color:#e8eaed;display:grid;place-items:center;min-height:100vh;margin:0;padding:16px;box-sizing:border-box}
main{max-width:420px;width:100%;background:#1c2026;border:1px solid #2e343c;border-radius:12px;padding:24px}
h1{font-size:1.3rem;margin:0 0 8px}.note{color:#f0b35a;font-size:.9rem}.amount{font-size:2rem;margin:12px 0}
.buttons{display:flex;gap:8px;flex-wrap:wrap;margin-top:16px}button{font:inherit;padding:10px 18px;border-radius:8px;border:1px solid #3a4049;background:#262b32;color:inherit;cursor:pointer}
button[value=pay]{background:#1f7a46;border-color:#1f7a46}a{color:#8ab4f8}
</style></head><body><main>${body}</main></body></html>`;
}

const RESULT: Record<PaymentStatus, string> = {
  completed: 'Payment received. Your balance has been credited.',
  failed: 'The payment failed. Nothing was charged.',
  expired: 'The payment expired. Nothing was charged.',
  pending: 'The payment is still pending.',
};

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** GET and POST /pay/test/{id}: the checkout page and its buttons. */
export function registerTestCheckout(app: Hono<AppEnv>, deps: SettleDeps): void {
  app.get('/pay/test/:id', async (c) => {
    c.header('Content-Security-Policy', PAGE_CSP);
    c.header('Cache-Control', 'no-store');
    const tx = await getTx(deps.db, c.req.param('id').slice(0, 100));
    if (!tx || tx.provider !== 'test') return c.html(page('Not found', '<h1>No such payment</h1>'), 404);
    if (tx.status !== 'pending' || tx.providerPaid) {
      const text = tx.providerPaid && tx.status === 'pending' ? 'Payment sent. Parley adds it to your balance when it redeems it.' : RESULT[tx.status];
      return c.html(page('Test checkout', `<h1>Test checkout</h1><p>${escape(text)}</p><p><a href="/wallet">Back to Parley</a></p>`));
    }
    const usd = formatUsdMicro(tx.usdMicro).replace(/0{1,4}$/, '');
    return c.html(
      page(
        'Test checkout',
        `<h1>Test checkout</h1><p class="note">Test payment provider: no real money moves.</p>
<div class="amount">${escape(tx.amount)} ${escape(tx.ticker)}</div><p>Credits $${escape(usd)} to your Parley balance.</p>
<form method="post" action="/pay/test/${escape(tx.id)}"><input type="hidden" name="token" value="${escape(tx.checkoutToken)}">
<div class="buttons"><button name="action" value="pay">Pay</button><button name="action" value="fail">Fail</button><button name="action" value="expire">Expire</button></div></form>`,
      ),
    );
  });

  app.post('/pay/test/:id', async (c) => {
    c.header('Content-Security-Policy', PAGE_CSP);
    c.header('Cache-Control', 'no-store');
    const tx = await getTx(deps.db, c.req.param('id').slice(0, 100));
    if (!tx || tx.provider !== 'test') return c.html(page('Not found', '<h1>No such payment</h1>'), 404);
    // The form is two short fields: read at most 4 KiB of it.
    const text = await readLimitedText(c, 4096).catch(() => null);
    if (text === null) return c.html(page('Bad request', '<h1>Bad request</h1>'), 413);
    const form = new URLSearchParams(text);
    const token = form.get('token') ?? '';
    if (!sameToken(token, tx.checkoutToken)) return c.html(page('Forbidden', '<h1>This checkout link is not valid</h1>'), 403);
    const action = form.get('action');
    const outcome: PaymentStatus | null = action === 'pay' ? 'completed' : action === 'fail' ? 'failed' : action === 'expire' ? 'expired' : null;
    if (outcome === null) return c.html(page('Bad request', '<h1>Unknown action</h1>'), 400);
    if (tx.paymentNonce !== null && outcome === 'completed' && tx.status === 'pending') {
      // Daimo-style: the payment is made here; the app credits it by redeeming it (POST /transaction/callback/daimo).
      await markProviderPaid(deps.db, tx.id);
      return c.html(page('Test checkout', `<h1>Test checkout</h1><p role="status">Payment sent. Parley adds it to your balance when it redeems it.</p><p><a href="/wallet">Back to Parley</a></p>`));
    }
    // A settled checkout is closed: its buttons do nothing more (the page just says how it ended).
    const status = tx.status === 'pending' && !tx.providerPaid ? await settlePayment(deps, tx, outcome, { provider: 'test', id: `${tx.id}:${outcome}` }) : tx.status;
    return c.html(page('Test checkout', `<h1>Test checkout</h1><p role="status">${escape(RESULT[status])}</p><p><a href="/wallet">Back to Parley</a></p>`));
  });
}
