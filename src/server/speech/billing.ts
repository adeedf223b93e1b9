/**
 * How a speech call pays: through the shared paid-call path (money/paid-call.ts, docs/gateway.md "Holds: the rule
 * for every paid call"). The call's cost is reserved before the provider is asked (one conditional statement, so
 * parallel calls never spend more than the balance), the `OpenHold` renews the hold while the provider works (a
 * TTS job re-run by another gateway takes the hold over by its key, ./jobs.ts), and it is settled once when the audio
 * or transcript is made, released when nothing was made. Free calls take no hold.
 */
import type { Context } from 'hono';
import type { PaymentSource } from '../../protocol/stream';
import { jsonError } from '../http';
import type { Ledger } from '../money/ledger';
import { insufficientBalance, OpenHold, reservePaidCall, type PaidCall, type Settlement, type Shortfall } from '../money/paid-call';
import { formatNanoRawCeil, formatUsdMicro } from '../money/amounts';

export type SpeechReserve = { ok: true; hold: OpenHold | null } | { ok: false; kind: 'short'; shortfall: Shortfall } | { ok: false; kind: 'used' };

/** Reserves a speech call's cost under `call.key`; a free call (cost 0) takes no hold. Throws only on database errors. */
export async function reserveSpeech(ledger: Ledger, sessionId: string, call: PaidCall, log: (line: string) => void): Promise<SpeechReserve> {
  if (call.maxUsdMicro <= 0n) return { ok: true, hold: null };
  const r = await reservePaidCall(ledger, sessionId, call, log);
  return r.ok ? { ok: true, hold: r.hold } : r;
}

/** The hold of a TTS job that another gateway reserved (its owner died): renewed and settled by this one. */
export function adoptSpeechHold(ledger: Ledger, sessionId: string, call: PaidCall, log: (line: string) => void): OpenHold {
  return new OpenHold(ledger, sessionId, call, log);
}

/** What a speech response reports of a settlement: nothing charged for a free call or a billingError. */
export function speechCharge(s: Settlement | null): { cost: number; paymentSource: PaymentSource | null } {
  if (s === null || s.billingError) return { cost: 0, paymentSource: null };
  return { cost: s.cost, paymentSource: s.paymentSource };
}

/** The 402 of a refused hold, or the 409 of a reused request id. */
export function refusedHold(c: Context, r: Extract<SpeechReserve, { ok: false }>, what: string): Response {
  if (r.kind === 'used') return jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered; send a new requestId to ask again');
  const s = r.shortfall;
  return insufficientBalance(c, `Insufficient balance: ${what} needs ${formatUsdMicro(s.requiredUsdMicro)} USD or ${formatNanoRawCeil(s.requiredNanoRaw)} XNO`, s);
}
