/** Whether this server takes nano deposits and runs test payments (the Wallet and Settings > Developer ask). */
import { useEffect, useState } from 'react';
import { engine, useQuery } from '../engine';

/**
 * The server's payment set-up: whether nano deposits are configured (an XNO method with a provider) and whether it
 * runs test payments; null while unknown. Asked once the session exists (a call racing the first session can fail);
 * a failed answer stays unknown, never "not set up".
 */
export function usePaymentSetup(): { nanoDeposits: boolean; testPayments: boolean } | null {
  const [setup, setSetup] = useState<{ nanoDeposits: boolean; testPayments: boolean } | null>(null);
  const sessionId = useQuery({ kind: 'session' })?.session?.id ?? null;
  useEffect(() => {
    if (sessionId === null) return;
    void engine((api) => api.paymentMethods()).then((m) =>
      setSetup(m === null ? null : { nanoDeposits: m.methods.some((x) => x.ticker === 'XNO' && x.provider !== null), testPayments: m.testPayments }),
    );
  }, [sessionId]);
  return setup;
}
