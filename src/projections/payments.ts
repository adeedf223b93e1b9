/**
 * Read model: the user's deposits, folded from `payment.started` and `payment.settled`. Pure, like every
 * projection; like the preferences it yields one small value the engine keeps in memory (the money room), computed
 * at start from the log's `type` index: no table, so nothing to rebuild. Pending ones are what the payment poller
 * resumes when an engine starts (DESIGN rule 6).
 */
import type { ProjectedEvent } from './projection';
import type { PaymentView } from '../protocol/engine-money';

/** One deposit: the wallet shows these records as they are (PaymentView, the payment store's transactionData). */
export type PaymentRecord = PaymentView;

export interface PaymentsState {
  /** Newest first; at most KEEP records (older ones are history nobody looks at). */
  records: readonly PaymentRecord[];
}

export const EMPTY_PAYMENTS: PaymentsState = { records: [] };
const KEEP = 50;

export function applyPayments(state: PaymentsState, event: ProjectedEvent): PaymentsState {
  if (event.type === 'payment.started') {
    const p = event.payload;
    if (state.records.some((r) => r.id === p.id)) return state;
    const record: PaymentRecord = {
      id: p.id,
      ticker: p.ticker,
      amount: p.amount,
      txId: p.txId,
      createdAt: p.createdAt,
      paymentLink: p.paymentLink,
      paymentNonce: p.paymentNonce ?? null,
      // Absent on events written before they were kept: those replay as unknown.
      network: p.network ?? null,
      usdEquivalent: p.usdEquivalent ?? null,
      status: 'pending',
      startedAt: p.at,
      settledAt: null,
    };
    return { records: [record, ...state.records].slice(0, KEEP) };
  }
  if (event.type === 'payment.settled') {
    const p = event.payload;
    let changed = false;
    const records = state.records.map((r) => {
      // A settled record never changes again (the first outcome the engine saw stands in the history).
      if (r.id !== p.id || r.status !== 'pending') return r;
      changed = true;
      return { ...r, status: p.status, settledAt: p.at };
    });
    return changed ? { records } : state;
  }
  return state;
}

export function foldPayments(events: Iterable<ProjectedEvent>, initial: PaymentsState = EMPTY_PAYMENTS): PaymentsState {
  let s = initial;
  for (const e of events) s = applyPayments(s, e);
  return s;
}

export function pendingPayments(state: PaymentsState): PaymentRecord[] {
  return state.records.filter((r) => r.status === 'pending');
}
