/**
 * Money as shown next to messages: amounts floored to 6 decimals (spec 000 section 9), in the currency the
 * reply was paid in. Costs arrive as decimal numbers (protocol/stream.ts); summing in micro-units keeps the total
 * free of float drift.
 */
import type { PaymentSource } from '../../protocol/stream';

const MICRO = 1_000_000;

function floor6(micro: number): string {
  return (Math.floor(micro) / MICRO).toFixed(6);
}

export function formatCost(cost: number, source: PaymentSource | undefined): string {
  const micro = Math.floor(cost * MICRO + 1e-6);
  return source === 'nano' ? `${floor6(micro)} XNO` : `$${floor6(micro)}`;
}

/** 'Total $0.000123' (and ' + 0.5 XNO' when some replies were paid in nano), or null when nothing was charged. */
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
  const parts = [...(usd > 0 || nano === 0 ? [`$${floor6(usd)}`] : []), ...(nano > 0 ? [`${floor6(nano)} XNO`] : [])];
  return `Total ${parts.join(' + ')}`;
}
