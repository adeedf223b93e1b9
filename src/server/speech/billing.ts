/**
 * How a speech call pays (docs/gateway.md, "Holds: the rule for every paid call"): reserve the call's cost before
 * the provider is asked, settle it once when the audio (or transcript) is made, release it when nothing was made.
 * The same shape as ledger/paid-call.ts on the gateway branch (reservePaidCall / OpenHold.settle / release); when
 * that lands, these three become calls to it. Free calls take no hold.
 */
import type { Context } from 'hono';
import type { PaymentSource } from '../../protocol/stream';
import { jsonError } from '../context';
import type { ChargeResult, Ledger } from '../ledger/ledger';
import { formatNanoRawCeil, formatUsdMicro, PAID_THRESHOLD_NANO_RAW, PAID_THRESHOLD_USD_MICRO } from '../money';

/** A speech hold lives this long before a sweep gives it back: longer than any job (15 minutes at most). */
export const SPEECH_HOLD_TTL_MS = 30 * 60_000;

export interface Shortfall {
  requiredUsdMicro: bigint;
  requiredNanoRaw: bigint;
}

export type SpeechReserve = { ok: true; held: boolean } | { ok: false; kind: 'short'; shortfall: Shortfall } | { ok: false; kind: 'used' };

export interface SpeechSettlement {
  cost: number;
  costUsdMicro: bigint;
  paymentSource: PaymentSource | null;
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

export async function reserveSpeech(ledger: Ledger, sessionId: string, key: string, usdMicro: bigint, note: string): Promise<SpeechReserve> {
  if (usdMicro <= 0n) return { ok: true, held: false };
  const r = await ledger.reserve(sessionId, {
    key,
    maxUsdMicro: usdMicro,
    ttlMs: SPEECH_HOLD_TTL_MS,
    above: { usdMicro: PAID_THRESHOLD_USD_MICRO, nanoRaw: PAID_THRESHOLD_NANO_RAW },
    note,
  });
  if (!r.ok) return { ok: false, kind: 'short', shortfall: { requiredUsdMicro: max(r.requiredUsdMicro, PAID_THRESHOLD_USD_MICRO), requiredNanoRaw: max(r.requiredNanoRaw, PAID_THRESHOLD_NANO_RAW) } };
  if (r.duplicate) return { ok: false, kind: 'used' };
  return { ok: true, held: true };
}

function sourceOf(r: ChargeResult): PaymentSource {
  if (r.source === 'nano') return 'nano';
  if (r.source === 'mixed') return r.chargedUsdMicro * 2n >= r.chargedUsdValueMicro ? 'USD' : 'nano';
  return 'USD';
}

/** Settles a held call once (a second settle returns the first result). Never throws: a failure is not charged. */
export async function settleSpeech(ledger: Ledger, sessionId: string, key: string, usdMicro: bigint, held: boolean, note: string, log: (line: string) => void): Promise<SpeechSettlement> {
  if (!held) return { cost: 0, costUsdMicro: 0n, paymentSource: null };
  try {
    const r = await ledger.settle(sessionId, key, usdMicro, { note });
    if (r.status !== 'applied') return { cost: 0, costUsdMicro: 0n, paymentSource: null };
    return { cost: Number(r.chargedUsdValueMicro) / 1e6, costUsdMicro: r.chargedUsdValueMicro, paymentSource: sourceOf(r) };
  } catch (e) {
    log(`speech: settle of ${key} failed (not charged; the hold expires): ${e instanceof Error ? e.message : String(e)}`);
    return { cost: 0, costUsdMicro: 0n, paymentSource: null };
  }
}

/** Gives a held call's money back (nothing was made). */
export async function releaseSpeech(ledger: Ledger, key: string, held: boolean, log: (line: string) => void): Promise<void> {
  if (!held) return;
  await ledger.release(key).catch((e: unknown) => log(`speech: release of ${key} failed (it expires): ${e instanceof Error ? e.message : String(e)}`));
}

/** The 402 of a refused hold, or the 409 of a reused request id. */
export function refusedHold(c: Context, r: Extract<SpeechReserve, { ok: false }>, what: string): Response {
  if (r.kind === 'used') return jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered; send a new requestId to ask again');
  return jsonError(c, 402, 'INSUFFICIENT_BALANCE', `Insufficient balance: ${what} needs ${formatUsdMicro(r.shortfall.requiredUsdMicro)} USD or ${formatNanoRawCeil(r.shortfall.requiredNanoRaw)} XNO`, {
    requiredBalance: formatNanoRawCeil(r.shortfall.requiredNanoRaw),
    requiredUsd: formatUsdMicro(r.shortfall.requiredUsdMicro),
  });
}
