/**
 * Integer money (DESIGN rule 9). USD is held in micro-dollars, nano (XNO) in raw: 10^30 raw = 1 XNO.
 * Amounts shown to clients are decimal strings floored to 6 decimals.
 */
export const MICRO_PER_USD = 1_000_000n;
export const RAW_PER_XNO = 10n ** 30n;
/** Raw per shown micro-XNO (6 decimals). */
const RAW_PER_MICRO_XNO = 10n ** 24n;

/** Paid-use threshold of the spec: a balance above 0.00001 (USD or nano). */
export const PAID_THRESHOLD_USD_MICRO = 10n; // 0.00001 USD
export const PAID_THRESHOLD_NANO_RAW = 10n ** 25n; // 0.00001 XNO

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export class AmountError extends Error {
  override name = 'AmountError';
}

/**
 * Parses a non-negative decimal string into integer units with `decimals` places ("1.5", 6 -> 1500000n).
 * More decimal places than `decimals` is an error (no silent rounding of money).
 */
export function parseDecimal(text: string, decimals: number, what = 'amount'): bigint {
  const s = text.trim();
  const m = DECIMAL.exec(s);
  if (!m) throw new AmountError(`Invalid ${what} '${text}': expected a non-negative decimal number like 5 or 0.25`);
  const whole = m[1] ?? '0';
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw new AmountError(`Invalid ${what} '${text}': at most ${decimals} decimal places`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/** Formats integer units with `decimals` places as a fixed decimal string (1500000n, 6 -> "1.500000"). */
export function formatUnits(units: bigint, decimals: number): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(decimals, '0');
  return `${neg ? '-' : ''}${whole}${decimals > 0 ? `.${frac}` : ''}`;
}

/** Micro-dollars as a USD decimal string with 6 decimals. */
export function formatUsdMicro(micro: bigint): string {
  return formatUnits(micro, 6);
}

/** Raw as an XNO decimal string floored to 6 decimals. */
export function formatNanoRaw(raw: bigint): string {
  return formatUnits(raw / RAW_PER_MICRO_XNO, 6);
}

/** Raw as an XNO decimal string rounded UP to 6 decimals (amounts a user must have). */
export function formatNanoRawCeil(raw: bigint): string {
  return formatUnits(ceilDiv(raw, RAW_PER_MICRO_XNO), 6);
}

export function ceilDiv(a: bigint, b: bigint): bigint {
  if (b <= 0n) throw new RangeError('division by a non-positive number');
  if (a <= 0n) return -(-a / b);
  return (a + b - 1n) / b;
}

/** USD micro-dollars -> raw at a nano price given in micro-dollars per XNO, rounded up. */
export function usdMicroToNanoRaw(usdMicro: bigint, nanoPriceUsdMicro: bigint): bigint {
  return ceilDiv(usdMicro * RAW_PER_XNO, nanoPriceUsdMicro);
}

/** Raw -> USD micro-dollars at a nano price, rounded down (value of a nano balance). */
export function nanoRawToUsdMicro(raw: bigint, nanoPriceUsdMicro: bigint): bigint {
  return (raw * nanoPriceUsdMicro) / RAW_PER_XNO;
}

/** Pricing of a model: micro-dollars per 1M tokens (i.e. USD per 1M tokens with 6 decimals). */
export interface PriceUnits {
  inputMicroPerM: bigint;
  outputMicroPerM: bigint;
}

/** Cost of a reply in micro-dollars, rounded up to the next micro-dollar. */
export function replyCostMicro(price: PriceUnits, inputTokens: number, outputTokens: number): bigint {
  const total = BigInt(inputTokens) * price.inputMicroPerM + BigInt(outputTokens) * price.outputMicroPerM;
  return ceilDiv(total, 1_000_000n);
}

/** A price as shown in ModelInfo.pricing: USD per 1M tokens, trailing zeros trimmed ("0.15", "3", "0"). */
export function formatPrice(microPerM: bigint): string {
  const s = formatUnits(microPerM, 6);
  return s.replace(/\.?0+$/, '') || '0';
}
