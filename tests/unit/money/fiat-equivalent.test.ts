/** The payment store's selectedCurrency (spec 001 section 3): a deposit's USD value shown in USD, EUR or GBP by the fiat rates. */
import { describe, expect, it } from 'vitest';
import { FIAT_CURRENCIES, fiatEquivalent } from '../../../src/protocol/payments';

const rates = { eurPerUsd: 0.92, gbpPerUsd: 0.79 };

describe('fiatEquivalent', () => {
  it('shows the USD value in the selected currency with its symbol, floored to cents', () => {
    expect(FIAT_CURRENCIES).toEqual(['USD', 'EUR', 'GBP']);
    expect(fiatEquivalent('7.00', 'USD', rates)).toBe('$7.00');
    expect(fiatEquivalent('7.00', 'EUR', rates)).toBe('€6.44');
    expect(fiatEquivalent('7.00', 'GBP', rates)).toBe('£5.53');
    // USD needs no rate.
    expect(fiatEquivalent('3', 'USD', null)).toBe('$3.00');
  });

  it('gives nothing when the amount is unknown or the rate is not loaded or not usable', () => {
    expect(fiatEquivalent('', 'USD', rates)).toBe('');
    expect(fiatEquivalent('abc', 'EUR', rates)).toBe('');
    expect(fiatEquivalent('7.00', 'EUR', null)).toBe('');
    expect(fiatEquivalent('7.00', 'GBP', { eurPerUsd: 0.9, gbpPerUsd: 0 })).toBe('');
    expect(fiatEquivalent('7.00', 'GBP', { eurPerUsd: 0.9, gbpPerUsd: Number.NaN })).toBe('');
  });
});
