/** The server's payment methods and set-up, asked by the Wallet, the Deposit dialog and Settings > Developer. */
import { useEffect, useState } from 'react';
import type { PaymentMethodsResponse } from '../../protocol/payments';
import { engine } from '../engine';

/** Waits between failed asks: a call can fail while the first session is being made, or on a busy gateway. */
const RETRY_MS = [500, 1000, 2000, 4000, 8000];

/**
 * The server's payment methods; null while unknown. Asked again (0.5 s, 1 s, 2 s, 4 s, then every 8 s while shown)
 * when an answer fails: a failed answer stays unknown, never "none", and is not the last word.
 */
export function usePaymentMethods(): PaymentMethodsResponse | null {
  const [methods, setMethods] = useState<PaymentMethodsResponse | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = (attempt: number) => {
      void engine((api) => api.paymentMethods()).then((m) => {
        if (!live) return;
        if (m) setMethods(m);
        else timer = setTimeout(() => ask(attempt + 1), RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
      });
    };
    ask(0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  return methods;
}

/** Whether nano deposits are configured (an XNO method with a provider) and whether the server runs test payments. */
export function usePaymentSetup(): { nanoDeposits: boolean; testPayments: boolean } | null {
  const m = usePaymentMethods();
  return m === null ? null : { nanoDeposits: m.methods.some((x) => x.ticker === 'XNO' && x.provider !== null), testPayments: m.testPayments };
}
