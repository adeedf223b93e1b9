/**
 * Rates and deposit limits (spec 001 section 9). Amounts of a ticker are handled as fixed point with 30 decimals
 * (nano's raw precision) so that no amount is ever a float; USD values are micro-dollars.
 *
 * A ticker's USD value per unit: USD 1; EUR and EURD from PARLEY_EUR_PER_USD; XNO the nano price; USDC and USDT 1
 * unless PARLEY_PAYMENT_RATES says otherwise; every other coin only from PARLEY_PAYMENT_RATES (no rate, no deposit:
 * nothing is fetched from another host).
 */
import { ceilDiv, formatUnits, parseDecimal } from '../money/amounts';
import { LIMITS, type PaymentLimits, type Ticker } from '../../protocol/payments';
import type { MoneyConfig } from './config';

const SCALE = 30;
const ONE = 10n ** 30n;

export function unitsOf(amount: string): bigint {
  return parseDecimal(amount, SCALE);
}

/** Micro-dollars per whole unit of `ticker`, or null when there is no rate. */
export function usdMicroPerUnit(ticker: Ticker, cfg: MoneyConfig, nanoPriceUsdMicro: bigint): bigint | null {
  const configured = cfg.ratesUsdMicro.get(ticker);
  if (configured !== undefined) return configured;
  switch (ticker) {
    case 'USD':
    case 'USDC':
    case 'USDT':
      return 1_000_000n;
    case 'EUR':
    case 'EURD':
      return (1_000_000n * 1_000_000n) / cfg.eurPerUsdMicro;
    case 'XNO':
      return nanoPriceUsdMicro;
    default:
      return null;
  }
}

/** USD value of an amount of `ticker`, floored to the micro-dollar; EUR straight from EUR per USD (no rounded rate). */
export function usdMicroFor(ticker: Ticker, units: bigint, perUnitMicro: bigint, cfg: MoneyConfig): bigint {
  if ((ticker === 'EUR' || ticker === 'EURD') && !cfg.ratesUsdMicro.has(ticker)) return (units * 10n ** 12n) / (cfg.eurPerUsdMicro * ONE);
  return usdMicroOf(units, perUnitMicro);
}

/** USD value of an amount (30-decimal units), floored to the micro-dollar. */
export function usdMicroOf(units: bigint, perUnitMicro: bigint): bigint {
  return (units * perUnitMicro) / ONE;
}

function unitsForUsd(usdMicro: bigint, perUnitMicro: bigint, roundUp: boolean): bigint {
  const n = usdMicro * ONE;
  return roundUp ? ceilDiv(n, perUnitMicro) : n / perUnitMicro;
}

/** Shown decimals per ticker: cents for fiat, 6 for nano, 8 for coins. */
export function decimalsOf(ticker: Ticker): number {
  if (ticker === 'USD' || ticker === 'EUR' || ticker === 'EURD') return 2;
  if (ticker === 'XNO') return 6;
  return 8;
}

function roundTo(units: bigint, decimals: number, up: boolean): bigint {
  const step = 10n ** BigInt(SCALE - decimals);
  return up ? ceilDiv(units, step) * step : (units / step) * step;
}

const show = (units: bigint, decimals: number): string => {
  const s = formatUnits(units, SCALE);
  const [w, f = ''] = s.split('.');
  const cut = f.slice(0, decimals).replace(/0+$/, '');
  return cut ? `${w}.${cut}` : (w ?? '0');
};

export interface Limits {
  minUnits: bigint;
  maxUnits: bigint;
  view: Omit<PaymentLimits, 'provider' | 'timestamp'>;
}

/** The limits of a ticker (spec 001 section 9), or null when it has no rate. */
export function limitsOf(ticker: Ticker, perUnitMicro: bigint, priorDeposit: boolean, eurPerUsdMicro: bigint): Limits {
  const d = decimalsOf(ticker);
  const usd = (s: string): bigint => parseDecimal(s, 6);
  let minUnits: bigint;
  let maxUnits: bigint;
  if (ticker === 'USD' || ticker === 'EUR') {
    const minUsd = usd(priorDeposit ? LIMITS.cardMinUsdAfterDeposit : LIMITS.cardMinUsd);
    // EUR straight from EUR per USD (the USD-per-EUR rate is rounded, which would nudge $1 to 0.91 EUR).
    const toUnits = (u: bigint, up: boolean): bigint => (ticker === 'EUR' ? u * eurPerUsdMicro * 10n ** 18n : unitsForUsd(u, perUnitMicro, up));
    minUnits = roundTo(toUnits(minUsd, true), d, true);
    maxUnits = roundTo(toUnits(usd(LIMITS.cardMaxUsd), false), d, false);
  } else if (ticker === 'EURD') {
    minUnits = unitsOf(LIMITS.eurdMin);
    maxUnits = unitsOf(LIMITS.eurdMax);
  } else if (ticker === 'XNO') {
    minUnits = unitsOf(LIMITS.xnoMin);
    maxUnits = roundTo(unitsForUsd(usd(LIMITS.otherMaxUsd), perUnitMicro, false), d, false);
  } else {
    minUnits = roundTo(unitsForUsd(usd(LIMITS.otherMinUsd), perUnitMicro, true), d, true);
    maxUnits = roundTo(unitsForUsd(usd(LIMITS.otherMaxUsd), perUnitMicro, false), d, false);
  }
  const fiat = (u: bigint): string => formatUnits(usdMicroOf(u, perUnitMicro), 6).replace(/\.?0+$/, '');
  return {
    minUnits,
    maxUnits,
    view: { minimum: show(minUnits, d), maximum: show(maxUnits, d), fiatEquivalentMinimum: fiat(minUnits), fiatEquivalentMaximum: fiat(maxUnits) },
  };
}
