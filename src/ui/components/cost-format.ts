/**
 * Money as shown next to messages, in the currency the reply was paid in, through the one money formatter
 * (protocol/money-format.ts: "$0.0031", "$0.25", "0.5 XNO"). Costs arrive as decimal numbers (protocol/stream.ts);
 * they are floored to 6 decimals (spec 000 section 9) and summed in micro-units, free of float drift.
 */
import { formatUsd, formatXno, usdExact } from '../../protocol/money-format';
import type { PaymentSource } from '../../protocol/stream';

const MICRO = 1_000_000;

export function formatCost(cost: number, source: PaymentSource | undefined): string {
  return source === 'nano' ? formatXno(cost) : formatUsd(cost);
}

/** The full 6-decimal figure of a cost, for its tooltip ("$0.003147", "0.5 XNO"). */
export function exactCost(cost: number, source: PaymentSource | undefined): string {
  return source === 'nano' ? formatXno(cost) : usdExact(cost);
}

/** 'Total $0.0012' (and ' + 0.5 XNO' when some replies were paid in nano), or null when nothing was charged. */
export function formatTotalCost(messages: ReadonlyArray<{ cost?: number; paymentSource?: PaymentSource }>): string | null {
  let usd = 0;
  let nano = 0;
  for (const m of messages) {
    if (!m.cost) continue;
    const micro = Math.floor(m.cost * MICRO + 1e-6);
    if (m.paymentSource === 'nano') nano += micro;
    else usd += micro;
  }
  if (usd === 0 && nano === 0) return null;
  const parts = [...(usd > 0 || nano === 0 ? [formatUsd(usd / MICRO)] : []), ...(nano > 0 ? [formatXno(nano / MICRO)] : [])];
  return `Total ${parts.join(' + ')}`;
}
