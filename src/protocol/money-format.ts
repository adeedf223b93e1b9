/**
 * Money as people read it (issue 16 item 7), the one formatter the UI and the engine's notices use. Amounts stay
 * floored to 6 decimals in every computation (spec 000 section 9 / 001 section 9); only the display is shorter:
 *  - USD: 2 decimals ("$7.99", "$0.00"); an amount below a cent keeps 2 significant digits ("$0.0031"), never a
 *    misleading "$0.00" for something that was charged.
 *  - XNO: up to 6 decimals with trailing zeros trimmed ("0.123147 XNO", "2 XNO").
 * `usdExact` gives the full 6-decimal figure, for a tooltip.
 */

const MICRO = 1_000_000;
const AMOUNT = /^\s*(\d{1,9})(?:\.(\d+))?\s*$/;

/** A decimal string or number as whole micro-units, floored (or rounded up with `ceil`); null when not an amount. */
export function toMicro(value: string | number, ceil = false): number | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return null;
    const scaled = value * MICRO;
    return ceil ? Math.ceil(scaled - 1e-6) : Math.floor(scaled + 1e-6);
  }
  const m = AMOUNT.exec(value);
  if (!m) return null;
  const frac = m[2] ?? '';
  const micro = Number(m[1]) * MICRO + Number(frac.slice(0, 6).padEnd(6, '0'));
  return ceil && /[1-9]/.test(frac.slice(6)) ? micro + 1 : micro;
}

/** Rounding of a shown amount: balances and costs are floored; an amount a user must have is rounded up. */
export type MoneyRounding = 'floor' | 'ceil';

function usdFromMicro(micro: number, rounding: MoneyRounding): string {
  if (micro === 0) return '$0.00';
  if (micro >= 10_000) {
    const cents = rounding === 'ceil' ? Math.ceil(micro / 10_000) : Math.floor(micro / 10_000);
    const whole = Math.floor(cents / 100);
    return `$${whole.toLocaleString('en-US')}.${String(cents % 100).padStart(2, '0')}`;
  }
  // Below a cent: 2 significant digits of the 6-decimal figure.
  const digits = String(micro).length; // 1..4
  const unit = 10 ** Math.max(0, digits - 2);
  const kept = rounding === 'ceil' ? Math.ceil(micro / unit) * unit : Math.floor(micro / unit) * unit;
  if (kept >= 10_000) return '$0.01';
  return `$${(kept / MICRO).toFixed(6).replace(/0+$/, '')}`;
}

/** "$7.99", "$0.0031", "$1,234.50"; "–" for something that is not an amount. */
export function formatUsd(value: string | number, rounding: MoneyRounding = 'floor'): string {
  const micro = toMicro(value, rounding === 'ceil');
  return micro === null ? '–' : usdFromMicro(micro, rounding);
}

/** The full figure floored to 6 decimals: "$0.003147" (for a title/tooltip). */
export function usdExact(value: string | number): string {
  const micro = toMicro(value);
  return micro === null ? '–' : `$${(micro / MICRO).toFixed(6)}`;
}

/** The number of an XNO amount: "0.123147", "2": 6 decimals at most, trailing zeros trimmed; "–" if not an amount. */
export function xnoDigits(value: string | number, rounding: MoneyRounding = 'floor'): string {
  const micro = toMicro(value, rounding === 'ceil');
  if (micro === null) return '–';
  const whole = Math.floor(micro / MICRO);
  const frac = String(micro % MICRO).padStart(6, '0').replace(/0+$/, '');
  return frac === '' ? String(whole) : `${whole}.${frac}`;
}

/** "0.123147 XNO", "2 XNO", "0 XNO". */
export function formatXno(value: string | number, rounding: MoneyRounding = 'floor'): string {
  return `${xnoDigits(value, rounding)} XNO`;
}

/** True when a decimal amount is above zero. */
export function isPositiveAmount(value: string | number | null | undefined): boolean {
  if (value === null || value === undefined) return false;
  const micro = toMicro(value);
  return micro !== null && micro > 0;
}

/**
 * Whether nano shows for this session: the user chose XNO as display currency, holds nano, or has a nano deposit
 * address (nano set up for this session). Otherwise amounts are in dollars only.
 */
export function nanoShown(session: { displayCurrency: 'USD' | 'XNO'; nano_balance: string; nanoDepositAddress: string | null }): boolean {
  return session.displayCurrency === 'XNO' || isPositiveAmount(session.nano_balance) || session.nanoDepositAddress !== null;
}

/** An amount in its own currency: "$2.00" for USD, "2 XNO" for nano, "0.0005 BTC" (as given) for other tickers. */
export function formatMoney(value: string | number, currency: string, rounding: MoneyRounding = 'floor'): string {
  if (currency === 'USD') return formatUsd(value, rounding);
  if (currency === 'XNO') return formatXno(value, rounding);
  return `${value} ${currency}`;
}

/**
 * The currency a user reads amounts in, for notices such as the 402's "needs a balance of": XNO for someone who pays
 * in nano (no USD balance, and nano held or chosen as display currency), else dollars. Spec 001 pays from USD when
 * the USD balance is above 0, else from nano; a new user with nothing yet uses dollars (issue 16 item 4).
 */
export function noticeCurrency(session: { usd_balance: string; nano_balance: string; displayCurrency: 'USD' | 'XNO' } | null | undefined): 'USD' | 'XNO' {
  if (!session || isPositiveAmount(session.usd_balance)) return 'USD';
  return session.displayCurrency === 'XNO' || isPositiveAmount(session.nano_balance) ? 'XNO' : 'USD';
}
