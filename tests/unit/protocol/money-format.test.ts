import { describe, expect, it } from 'vitest';
import { formatMoney, formatUsd, formatXno, nanoShown, noticeCurrency, toMicro, usdExact, xnoDigits } from '../../../src/protocol/money-format';

describe('money-format (issue 16 item 7)', () => {
  it('shows dollars with 2 decimals, floored', () => {
    expect(formatUsd('7.992751')).toBe('$7.99');
    expect(formatUsd('2.000000')).toBe('$2.00');
    expect(formatUsd('0.000000')).toBe('$0.00');
    expect(formatUsd(0.25)).toBe('$0.25');
    expect(formatUsd('1234.5')).toBe('$1,234.50');
  });

  it('keeps 2 significant digits below a cent instead of a false $0.00', () => {
    expect(formatUsd(0.003147)).toBe('$0.0031');
    expect(formatUsd('0.000050')).toBe('$0.00005');
    expect(formatUsd(0.000001)).toBe('$0.000001');
    expect(formatUsd('0.0099999')).toBe('$0.0099');
  });

  it('rounds up an amount a user must have', () => {
    expect(formatUsd('0.123147', 'ceil')).toBe('$0.13');
    expect(formatUsd('0.12', 'ceil')).toBe('$0.12');
    expect(formatUsd('0.0031001', 'ceil')).toBe('$0.0032');
    expect(formatUsd('0.00999', 'ceil')).toBe('$0.01');
  });

  it('gives the full 6-decimal figure for a tooltip', () => {
    expect(usdExact(0.0031479)).toBe('$0.003147');
    expect(usdExact('7.992751')).toBe('$7.992751');
  });

  it('shows XNO with at most 6 decimals, trailing zeros trimmed', () => {
    expect(formatXno('0.123147')).toBe('0.123147 XNO');
    expect(formatXno('2.000000')).toBe('2 XNO');
    expect(formatXno('1.5000009')).toBe('1.5 XNO');
    expect(formatXno(0)).toBe('0 XNO');
    expect(xnoDigits('0.100000')).toBe('0.1');
  });

  it('formats each currency its own way and leaves other tickers as given', () => {
    expect(formatMoney('2.000000', 'USD')).toBe('$2.00');
    expect(formatMoney('2.000000', 'XNO')).toBe('2 XNO');
    expect(formatMoney('0.0005', 'BTC')).toBe('0.0005 BTC');
  });

  it('rejects what is not an amount', () => {
    expect(toMicro('abc')).toBeNull();
    expect(toMicro(-1)).toBeNull();
    expect(formatUsd('1e5')).toBe('–');
  });

  it('shows nano only where it is in use for the session', () => {
    const base = { displayCurrency: 'USD' as const, nano_balance: '0.000000', nanoDepositAddress: null };
    expect(nanoShown(base)).toBe(false);
    expect(nanoShown({ ...base, nano_balance: '0.000001' })).toBe(true);
    expect(nanoShown({ ...base, displayCurrency: 'XNO' })).toBe(true);
    expect(nanoShown({ ...base, nanoDepositAddress: 'nano_1abc' })).toBe(true);
  });
});

describe('noticeCurrency (issue 16 item 4)', () => {
  it('speaks dollars unless the user pays in nano', () => {
    const s = { usd_balance: '0.000000', nano_balance: '0.000000', displayCurrency: 'USD' as const };
    expect(noticeCurrency(s)).toBe('USD');
    expect(noticeCurrency(null)).toBe('USD');
    expect(noticeCurrency({ ...s, nano_balance: '0.5' })).toBe('XNO');
    expect(noticeCurrency({ ...s, displayCurrency: 'XNO' })).toBe('XNO');
    expect(noticeCurrency({ ...s, usd_balance: '0.01', nano_balance: '0.5' })).toBe('USD');
  });
});
