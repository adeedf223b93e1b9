/** The payment store's currency options (spec 001 section 4): the networks a coin is offered on here. */
import { describe, expect, it } from 'vitest';
import { currencyOptions, DEPOSIT_METHODS } from '../../../src/protocol/payments';

const served = (ids: string[]) => DEPOSIT_METHODS.map((m) => ({ id: m.id, provider: ids.includes(m.id) ? 'test' : null }));

describe('currencyOptions', () => {
  it("lists the ticker's networks that have a provider here, in the method table's order", () => {
    const options = currencyOptions('USDC', served(['USDC@BASE', 'USDC@ARBITRUM', 'USDT@BASE', 'USD']));
    expect(options.map((m) => m.id)).toEqual(['USDC@BASE', 'USDC@ARBITRUM']);
    expect(currencyOptions('USDT', served(['USDC@BASE', 'USDT@BASE'])).map((m) => m.network)).toEqual(['BASE']);
  });
  it('a coin without networks, or with none served, has no options', () => {
    expect(currencyOptions('BTC', served(['BTC']))).toEqual([]);
    expect(currencyOptions('USDC', served([]))).toEqual([]);
  });
});
