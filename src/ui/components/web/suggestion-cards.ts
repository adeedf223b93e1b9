/** Where "Add balance" cards go among the starter suggestions (docs/decisions.md, "Suggestion frequencies"). */
import { LOW_BALANCE_FREQUENCY, LOW_BALANCE_NANO, LOW_BALANCE_USD, NO_BALANCE_FREQUENCY, type Suggestion } from '../../../protocol/web';

/** Spec 001: the paid-use threshold. */
const PAID_THRESHOLD = 0.00001;

export type BalanceLevel = 'none' | 'low' | 'ok';

export function balanceLevel(usd: number, nano: number): BalanceLevel {
  if (usd <= PAID_THRESHOLD && nano <= PAID_THRESHOLD) return 'none';
  if (usd < LOW_BALANCE_USD && nano < LOW_BALANCE_NANO) return 'low';
  return 'ok';
}

export type Card = { kind: 'prompt'; suggestion: Suggestion } | { kind: 'balance'; key: string };

/** The suggestions with an "Add balance" card in every `frequency`-th place (no card when the balance is fine). */
export function withBalanceCards(suggestions: readonly Suggestion[], level: BalanceLevel): Card[] {
  const frequency = level === 'none' ? NO_BALANCE_FREQUENCY : level === 'low' ? LOW_BALANCE_FREQUENCY : 0;
  const out: Card[] = [];
  for (const s of suggestions) {
    if (frequency > 0 && (out.length + 1) % frequency === 0) out.push({ kind: 'balance', key: `balance-${out.length}` });
    out.push({ kind: 'prompt', suggestion: s });
  }
  return out;
}

