/** Where "Add balance" cards go among the starter suggestions (docs/decisions.md, "Suggestion frequencies"). */
import { LOW_BALANCE_FREQUENCY, LOW_BALANCE_NANO, LOW_BALANCE_USD, NO_BALANCE_FREQUENCY } from '../../../protocol/web-limits';
import type { Suggestion } from '../../../protocol/web';

/** Spec 001: the paid-use threshold. */
const PAID_THRESHOLD = 0.00001;

export type BalanceLevel = 'none' | 'low' | 'ok';

export function balanceLevel(usd: number, nano: number): BalanceLevel {
  if (usd <= PAID_THRESHOLD && nano <= PAID_THRESHOLD) return 'none';
  if (usd < LOW_BALANCE_USD && nano < LOW_BALANCE_NANO) return 'low';
  return 'ok';
}

export type Card = { kind: 'prompt'; suggestion: Suggestion } | { kind: 'balance'; key: string };

/**
 * The suggestions with one "Add balance" card in the `frequency`-th place (3rd with no balance, 10th with a low
 * one; issue 16: at most one such card, not one every few) and none when the balance is fine.
 */
export function withBalanceCards(suggestions: readonly Suggestion[], level: BalanceLevel): Card[] {
  const frequency = level === 'none' ? NO_BALANCE_FREQUENCY : level === 'low' ? LOW_BALANCE_FREQUENCY : 0;
  const out: Card[] = suggestions.map((suggestion) => ({ kind: 'prompt', suggestion }));
  if (frequency > 0) out.splice(Math.min(frequency - 1, out.length), 0, { kind: 'balance', key: 'balance' });
  return out;
}

