/**
 * The spec's user-facing strings for money (spec 001 sections 5 and 8), verbatim, in one place (DESIGN rule 8),
 * with the pure deposit validation the Deposit dialog and the engine share. Texts the spec does not quote are
 * ours and marked so.
 */
import type { InvitationErrorCode, PaymentLimits } from './payments';

/** Spec 001 section 9: notification durations 3 s, 5 s, 10 s, persistent where stated. */
export const MONEY_DURATION = { short: 3_000, medium: 5_000, long: 10_000 } as const;

export const DEPOSIT_TEXT = {
  limitsNotLoaded: 'Payment limits not loaded',
  invalidAmount: 'Invalid payment amount',
  cardRange: 'Amount must be between $1 and $2000',
  outOfBounds: (ticker: string) => `Amount out of bounds for ${ticker}`,
  minimumCoin: (amount: string, ticker: string, usd: string) => `Minimum deposit is ${amount} ${ticker} ($${usd})`,
  maximumCoin: (amount: string, ticker: string, usd: string) => `Maximum deposit is ${amount} ${ticker} ($${usd})`,
  minimumUsd: (n: string) => `Minimum deposit is $${n}`,
  maximumUsd: (n: string) => `Maximum deposit is $${n}`,
  // Creation errors, by status (section 8).
  unableToCreate: 'Unable to create payment',
  maximumAmount: (n: string) => `Maximum deposit amount is ${n}`,
  minimumAmount: (n: string) => `Minimum deposit amount is ${n}`,
  methodUnavailable: 'This payment method is currently not available',
  transactionFailed: 'Transaction Failed',
  transactionFailedText: 'The payment did not go through. Nothing was added to your balance.', // ours
  depositReceived: 'Deposit received', // ours
  missingRedeemCode: 'Missing redeem code',
  daimoFailedTitle: 'Payment Failed',
  daimoFailed: (email: string, id: string) =>
    `Unable to redeem Daimo payment. Please reach out to support at ${email} and provide the following payment id: ${id}`,
} as const;

export const NANO_TEXT = {
  converted: (n: string) => `${n} XNO converted to USD`,
  convertFailed: 'Unable to convert nano to USD',
  // Ours: the spec gives no wording for the return address.
  invalidReturnAddress: 'That is not a nano address. It starts with nano_ and has 65 characters.',
} as const;

export const ACCOUNT_TEXT = {
  rechargeFailed: 'Unable to set auto-recharge settings',
  // Ours (issue 16): which method pays a top-up.
  rechargePayer: (testPayments: boolean) =>
    testPayments
      ? 'Each top-up is paid through a test checkout linked here (no real money moves on this server).'
      : 'Each top-up is charged to the card saved with your last Card (USD) deposit. Make a card deposit first.',
  // Ours (recovery revokes, issue 15 item 9): the spec has no sign-out.
  signedOutTitle: 'Signed out',
  signedOutText:
    'Another browser made a new recovery code for this session or signed the other browsers out. This browser now has a new, empty session; your conversations are still here. To open the old session again, enter its current recovery code on the Wallet page.',
  othersSignedOutTitle: 'Other browsers signed out',
  othersSignedOutText: 'Every other browser that had this session is signed out. This browser stays signed in.',
  signOutFailed: 'Unable to sign out the other browsers',
} as const;

/** Section 8, invitations: each an orange notice for 5 s. `support` fills the contact-support lines. */
export function invitationNotice(code: string, supportEmail: string): { title: string; text: string } {
  // An unknown address (the gateway could not be asked) says so in plain words rather than "at support.".
  const contact = supportEmail ? `Please contact support at ${supportEmail}.` : 'Please contact support.';
  const known: Record<InvitationErrorCode, { title: string; text: string }> = {
    InvalidAmount: { title: 'Invalid amount', text: 'Please correct the fields and try again' },
    InsufficientBalance: { title: 'Insufficient balance', text: 'Add funds to your balance and try again' },
    InvalidExpiresAt: { title: 'Invalid expiry date', text: 'Change the expiry date and try again' },
    NoAmountToRedeem: { title: 'No amount to redeem', text: 'The invitation has no amount to redeem' },
    InviteNotFound: { title: 'Invitation could not be redeemed', text: contact },
    InviteRedeemed: { title: 'Cannot modify redeemed invitation', text: 'This invitation has already been redeemed and cannot be changed' },
    MissingRedeemCode: { title: 'Missing redeem code', text: 'Enter the code of the invitation to redeem it.' /* ours */ },
  };
  return known[code as InvitationErrorCode] ?? { title: 'Invitation was not updated', text: contact };
}

const DECIMAL = /^\d{1,20}(\.\d{1,30})?$/;

/** Compares two non-negative decimal strings exactly (no floats): -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const [aw = '0', af = ''] = a.split('.');
  const [bw = '0', bf = ''] = b.split('.');
  const len = Math.max(af.length, bf.length);
  const x = BigInt(aw + af.padEnd(len, '0'));
  const y = BigInt(bw + bf.padEnd(len, '0'));
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Decimals a typed amount may carry, per ticker: cents for fiat, 6 for nano, 8 for coins. */
export function maxDecimals(ticker: string): number {
  return ticker === 'USD' || ticker === 'EUR' || ticker === 'EURD' ? 2 : ticker === 'XNO' ? 6 : 8;
}

/**
 * Spec 001 section 5: the deposit amount against the ticker's limits. Null when it may be sent; else the message.
 * The card (USD) range message comes first, then the ticker's own minimum and maximum.
 */
export function validateDeposit(ticker: string, value: string, limits: PaymentLimits | null): string | null {
  if (!limits) return DEPOSIT_TEXT.limitsNotLoaded;
  const v = value.trim();
  if (!DECIMAL.test(v) || !/[1-9]/.test(v)) return DEPOSIT_TEXT.invalidAmount;
  if ((v.split('.')[1] ?? '').length > maxDecimals(ticker)) return DEPOSIT_TEXT.outOfBounds(ticker);
  if (ticker === 'USD') {
    if (compareDecimal(v, '1') < 0 || compareDecimal(v, '2000') > 0) return DEPOSIT_TEXT.cardRange;
    if (compareDecimal(v, limits.minimum) < 0) return DEPOSIT_TEXT.minimumUsd(limits.minimum);
    if (compareDecimal(v, limits.maximum) > 0) return DEPOSIT_TEXT.maximumUsd(limits.maximum);
    return null;
  }
  if (compareDecimal(v, limits.minimum) < 0) return DEPOSIT_TEXT.minimumCoin(limits.minimum, ticker, limits.fiatEquivalentMinimum);
  if (compareDecimal(v, limits.maximum) > 0) return DEPOSIT_TEXT.maximumCoin(limits.maximum, ticker, limits.fiatEquivalentMaximum);
  return null;
}

/** Section 8: what a failed POST /transaction/create answer says to the user, by status and text. */
export function creationError(status: number, message: string, limit: string | undefined): string {
  if (status >= 500) return DEPOSIT_TEXT.unableToCreate;
  const text = message.toLowerCase();
  if (status === 400 && text.includes('maximum')) return DEPOSIT_TEXT.maximumAmount(limit ?? '');
  if (status === 400 && text.includes('minimum')) return DEPOSIT_TEXT.minimumAmount(limit ?? '');
  if (status === 400 && text.includes('payment method')) return DEPOSIT_TEXT.methodUnavailable;
  return DEPOSIT_TEXT.invalidAmount;
}

/** Notice topics (Notice.topic): a success closes the same topic's earlier error notices (issue 16). */
export const DEPOSIT_TOPIC = 'deposit';
export const INVITATION_TOPIC = 'invitation';
