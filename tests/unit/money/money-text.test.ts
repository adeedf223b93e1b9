/** The spec's deposit validation messages and creation errors (spec 001 sections 5 and 8), case by case. */
import { describe, expect, it } from 'vitest';
import { creationError, invitationNotice, validateDeposit } from '../../../src/protocol/money-text';
import type { PaymentLimits } from '../../../src/protocol/payments';

const usd = (min = '1'): PaymentLimits => ({ minimum: min, maximum: '2000', fiatEquivalentMinimum: min, fiatEquivalentMaximum: '2000', timestamp: 0, provider: 'test' });
const zec: PaymentLimits = { minimum: '0.0025', maximum: '50', fiatEquivalentMinimum: '0.1', fiatEquivalentMaximum: '2000', timestamp: 0, provider: 'test' };

describe('deposit validation (section 5)', () => {
  it('says every message verbatim', () => {
    expect(validateDeposit('USD', '5', null)).toBe('Payment limits not loaded');
    expect(validateDeposit('USD', '0.5', usd())).toBe('Amount must be between $1 and $2000');
    expect(validateDeposit('USD', '2000.01', usd())).toBe('Amount must be between $1 and $2000');
    expect(validateDeposit('USD', '3', usd('5'))).toBe('Minimum deposit is $5');
    expect(validateDeposit('USD', '1500', { ...usd(), maximum: '1000' })).toBe('Maximum deposit is $1000');
    expect(validateDeposit('ZEC', '0.001', zec)).toBe('Minimum deposit is 0.0025 ZEC ($0.1)');
    expect(validateDeposit('ZEC', '51', zec)).toBe('Maximum deposit is 50 ZEC ($2000)');
    expect(validateDeposit('ZEC', '0.123456789', zec)).toBe('Amount out of bounds for ZEC');
    expect(validateDeposit('USD', '5', usd('5'))).toBeNull();
    expect(validateDeposit('ZEC', '0.1', zec)).toBeNull();
  });

  it('refuses 0, negative, NaN, 2^64-style, 1e-30 and non-numeric amounts', () => {
    for (const v of ['0', '0.00', '-1', 'NaN', '1e-30', 'abc', '', '1,5', '0x10', '1.2.3', ' ']) {
      expect(validateDeposit('ZEC', v, zec), v).toBe('Invalid payment amount');
    }
    expect(validateDeposit('ZEC', '18446744073709551616', zec)).toBe('Maximum deposit is 50 ZEC ($2000)');
  });
});

describe('creation errors by status (section 8)', () => {
  it('maps each status and text', () => {
    expect(creationError(500, 'boom', undefined)).toBe('Unable to create payment');
    expect(creationError(503, 'Unable to create payment', undefined)).toBe('Unable to create payment');
    expect(creationError(400, 'Above the maximum deposit of 2000 USD', '2000')).toBe('Maximum deposit amount is 2000');
    expect(creationError(400, 'Below the minimum deposit of 5 USD', '5')).toBe('Minimum deposit amount is 5');
    expect(creationError(400, 'The payment method BTC is not available', undefined)).toBe('This payment method is currently not available');
    expect(creationError(400, 'something else', undefined)).toBe('Invalid payment amount');
  });

  it('invitation codes map to their notices, anything else to the generic one', () => {
    expect(invitationNotice('InvalidAmount', 'x@y')).toEqual({ title: 'Invalid amount', text: 'Please correct the fields and try again' });
    expect(invitationNotice('InviteNotFound', 'help@example.org').text).toBe('Please contact support at help@example.org.');
    // No address known (the gateway could not be asked): no dangling "at support.".
    expect(invitationNotice('InviteNotFound', '').text).toBe('Please contact support.');
    expect(invitationNotice('InsufficientBalance', 'x@y')).toEqual({ title: 'Insufficient balance', text: 'Add funds to your balance and try again' });
    expect(invitationNotice('InvalidExpiresAt', 'x@y')).toEqual({ title: 'Invalid expiry date', text: 'Change the expiry date and try again' });
    expect(invitationNotice('NoAmountToRedeem', 'x@y')).toEqual({ title: 'No amount to redeem', text: 'The invitation has no amount to redeem' });
    expect(invitationNotice('InviteNotFound', 'x@y').title).toBe('Invitation could not be redeemed');
    expect(invitationNotice('InviteNotFound', 'x@y').text).toContain('x@y');
    expect(invitationNotice('InviteRedeemed', 'x@y')).toEqual({ title: 'Cannot modify redeemed invitation', text: 'This invitation has already been redeemed and cannot be changed' });
    expect(invitationNotice('RATE_LIMITED', 'x@y').title).toBe('Invitation was not updated');
  });
});
