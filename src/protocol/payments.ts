/**
 * Money on the wire (spec 001 sections 2, 3, 7 and 9): the deposit methods, limits, transactions, invitations,
 * auto-recharge, nano wallet actions and the recovery code. Schemas are zod so the gateway validates at the edge;
 * the worker and the view import the types and the pure amount checks.
 */
import { z } from 'zod';

/** Spec 001 section 9: the payment store's deposit currency list. */
export const DEPOSIT_TICKERS = [
  'USD', 'EUR', 'XNO', 'BCH', 'LTC', 'LTC-MWEB', 'DASH', 'XMR', 'DOGE', 'BTC', 'BTC-LN', 'ZEC', 'USDC', 'SOL', 'KAS',
  'EGLD', 'TON', 'NEAR', 'BAN', 'EURD', 'USDT', 'ETH', 'VERSE', 'MATIC', 'PARLEY',
] as const;
export type Ticker = (typeof DEPOSIT_TICKERS)[number];

export interface DepositMethod {
  /** Unique per row: ticker, or ticker@network for the stablecoins on several networks. */
  id: string;
  ticker: Ticker;
  name: string;
  /** Brand colour (our own pick, used by the inline logo). */
  colour: string;
  /** Symbol drawn in the logo and shown beside amounts. */
  symbol: string;
  network?: string;
  /** Card payments (USD, EUR) go through a payment link; the others through a crypto checkout or the nano address. */
  kind: 'card' | 'crypto' | 'nano';
  /** Spec 001 section 9: only USD and EUR card, ZEC, TON, KAS, EGLD and the product coin carry a default amount. */
  defaultAmount?: string;
}

const m = (id: string, ticker: Ticker, name: string, colour: string, symbol: string, extra: Partial<DepositMethod> = {}): DepositMethod => ({
  id,
  ticker,
  name,
  colour,
  symbol,
  kind: 'crypto',
  ...extra,
});

const STABLE_NETWORKS = ['BASE', 'OPTIMISM', 'COINBASE', 'ARBITRUM', 'BINANCE'] as const;

/** Spec 001 section 9, "Deposit methods shown", in its order. {product} is Parley's own coin, ticker PARLEY. */
export const DEPOSIT_METHODS: readonly DepositMethod[] = [
  m('USD', 'USD', 'Card (USD)', '#2f6fde', '$', { kind: 'card', defaultAmount: '5' }),
  m('EUR', 'EUR', 'Card (EUR)', '#1f4fa8', '€', { kind: 'card', defaultAmount: '5' }),
  m('XNO', 'XNO', 'Nano', '#209ce9', 'Ӿ', { kind: 'nano' }),
  m('BCH', 'BCH', 'Bitcoin Cash', '#0ac18e', 'Ƀ'),
  m('BAN', 'BAN', 'Banano', '#e5c72b', 'B'),
  m('SOL', 'SOL', 'Solana', '#9945ff', '◎'),
  m('XMR', 'XMR', 'Monero', '#f26822', 'ɱ'),
  m('LTC', 'LTC', 'Litecoin', '#345d9d', 'Ł'),
  m('LTC-MWEB', 'LTC-MWEB', 'Litecoin MWEB', '#2b4c82', 'Ł'),
  m('DASH', 'DASH', 'Dash', '#008ce7', 'D'),
  m('BTC', 'BTC', 'Bitcoin', '#f7931a', 'B'),
  m('BTC-LN', 'BTC-LN', 'Bitcoin Lightning', '#7b3fe4', '⚡'),
  m('DOGE', 'DOGE', 'Dogecoin', '#c2a633', 'Ð'),
  m('USDC', 'USDC', 'USD Coin', '#2775ca', '$'),
  ...STABLE_NETWORKS.flatMap((network) => [
    m(`USDC@${network}`, 'USDC', `USDC on ${network[0]}${network.slice(1).toLowerCase()}`, '#2775ca', '$', { network }),
    m(`USDT@${network}`, 'USDT', `USDT on ${network[0]}${network.slice(1).toLowerCase()}`, '#26a17b', '₮', { network }),
  ]),
  m('ZEC', 'ZEC', 'Zcash', '#ecb244', 'ⓩ', { defaultAmount: '0.1' }),
  m('TON', 'TON', 'Toncoin', '#0098ea', '◆', { defaultAmount: '1' }),
  m('NEAR', 'NEAR', 'NEAR', '#00c08b', 'Ⓝ'),
  m('ETH', 'ETH', 'Ether', '#627eea', 'Ξ'),
  m('VERSE', 'VERSE', 'Verse', '#0085ff', 'V'),
  m('KAS', 'KAS', 'Kaspa', '#49eacb', 'K', { defaultAmount: '10' }),
  m('EGLD', 'EGLD', 'MultiversX', '#23f7dd', 'ⓔ', { defaultAmount: '0.5' }),
  m('PARLEY', 'PARLEY', 'Parley coin', '#8b5cf6', 'P', { defaultAmount: '0.5' }),
  m('EURD', 'EURD', 'Quantoz EURD', '#1d3f8f', '€'),
  m('MATIC', 'MATIC', 'Polygon', '#8247e5', 'M', { network: 'POLYGON' }),
];

/** A network as the dialog names it: 'BASE' -> 'Base' (the method names use the same form). */
export function networkLabel(network: string): string {
  return `${network[0] ?? ''}${network.slice(1).toLowerCase()}`;
}

/**
 * The payment store's currency options (spec 001 section 4): the networks a coin is offered on here, the method
 * rows of that ticker with a network whose provider is set. Reloaded with the limits and rates when the ticker
 * changes (DepositDialog's AmountStep); more than one shows a "Network" choice.
 */
export function currencyOptions(ticker: string, methods: readonly { id: string; provider: string | null }[]): DepositMethod[] {
  return DEPOSIT_METHODS.filter((m) => m.ticker === ticker && m.network !== undefined && methods.some((x) => x.id === m.id && x.provider !== null));
}

export function methodById(id: string): DepositMethod | undefined {
  return DEPOSIT_METHODS.find((x) => x.id === id);
}

export function isTicker(v: string): v is Ticker {
  return (DEPOSIT_TICKERS as readonly string[]).includes(v);
}

/** Spec 001 section 9: card deposits $1 to $2000 ($5 minimum after a prior deposit); others 0.1 to 2000 USD; EURD 0.1 to 1500; XNO from 0.000001. */
export const LIMITS = {
  cardMinUsd: '1',
  cardMinUsdAfterDeposit: '5',
  cardMaxUsd: '2000',
  otherMinUsd: '0.1',
  otherMaxUsd: '2000',
  eurdMin: '0.1',
  eurdMax: '1500',
  xnoMin: '0.000001',
} as const;

/** Spec 001 section 9: polling every 3 s, 200 attempts; a transaction expires after 30 min; fiat rates cached 60 s. */
export const PAYMENT_POLL_MS = 3_000;
export const PAYMENT_POLL_ATTEMPTS = 200;
export const PAYMENT_EXPIRY_MS = 30 * 60_000;
export const FIAT_RATES_CACHE_MS = 60_000;

/**
 * The payment store's usdEquivalentValue (spec 001 section 3): a typed amount's USD value at the limits' own rate
 * (fiatEquivalentMinimum / minimum), floored to 2 decimals; '' when the amount or the rate is unknown.
 */
export function usdEquivalent(value: string, limits: Pick<PaymentLimits, 'minimum' | 'fiatEquivalentMinimum'> | null): string {
  if (!limits || !/^\d+(\.\d+)?$/.test(value.trim())) return '';
  const rate = Number(limits.fiatEquivalentMinimum) / Number(limits.minimum);
  const v = Number(value) * rate;
  return Number.isFinite(v) && v > 0 ? (Math.floor(v * 100 + 1e-9) / 100).toFixed(2) : '';
}

/** The payment store's selectedCurrency (spec 001 section 3): the fiat currency the Deposit flow shows amounts in, by the fiat rates. */
export type FiatCurrency = 'USD' | 'EUR' | 'GBP';
export const FIAT_CURRENCIES: readonly FiatCurrency[] = ['USD', 'EUR', 'GBP'];
const FIAT_SYMBOL: Record<FiatCurrency, string> = { USD: '$', EUR: '€', GBP: '£' };

/**
 * A USD amount (as usdEquivalent gives it) in the selected fiat currency, with its symbol: '$7.00', '€6.02' by the
 * fiat rates (eurPerUsd, gbpPerUsd); '' when the amount is unknown or the rates are not loaded.
 */
export function fiatEquivalent(usd: string, currency: FiatCurrency, rates: { eurPerUsd: number; gbpPerUsd: number } | null): string {
  if (!/^\d+(\.\d+)?$/.test(usd)) return '';
  const rate = currency === 'USD' ? 1 : currency === 'EUR' ? rates?.eurPerUsd : rates?.gbpPerUsd;
  if (rate === undefined || !Number.isFinite(rate) || rate <= 0) return '';
  const v = Math.floor(Number(usd) * rate * 100 + 1e-9) / 100;
  return `${FIAT_SYMBOL[currency]}${v.toFixed(2)}`;
}

export type PaymentStatus = 'pending' | 'completed' | 'failed' | 'expired';

/**
 * The status a deposit shows: a checkout still pending 30 minutes after it started is Expired, whether or not an
 * engine has polled it since (issue 16: an abandoned checkout stayed "Pending" forever). The poller settles it the
 * same way (rooms/money/payment-poller.ts), with one last look in case it was paid late.
 */
export function shownPaymentStatus(payment: { status: PaymentStatus; startedAt: number }, now: number): PaymentStatus {
  return payment.status === 'pending' && now >= payment.startedAt + PAYMENT_EXPIRY_MS ? 'expired' : payment.status;
}

/** GET /api/transaction/limits/{ticker}. Amounts are decimal strings in the ticker's unit; fiat equivalents in USD. */
export interface PaymentLimits {
  minimum: string;
  maximum: string;
  fiatEquivalentMinimum: string;
  fiatEquivalentMaximum: string;
  timestamp: number;
  /** Which configured provider takes this ticker; null = no provider: the method is shown as unavailable. */
  provider: string | null;
}

/** GET /api/payment-methods: which provider takes each method here (null = shown as unavailable). */
export interface PaymentMethodsResponse {
  methods: { id: string; ticker: Ticker; provider: string | null }[];
  /** The test provider is on: no real money moves (the dialog says so). */
  testPayments: boolean;
  supportEmail: string;
}

/** GET /api/get-fiat-prices: units of EUR and GBP per USD. */
export interface FiatPrices {
  eurUsd: string;
  gbpUsd: string;
}

/** POST /transaction/create/{ticker} answer (spec 001 section 3, payment transaction). createdAt is in seconds. */
export interface PaymentTransaction {
  id: string;
  txId: string;
  createdAt: number;
  paymentLink: string;
  /** POST /transaction/create/daimo only: what the redeem call must carry (the payment store's paymentNonce). */
  paymentNonce?: string;
}

export interface PaymentStatusResponse {
  status: PaymentStatus;
  /** A Daimo-style deposit the provider says is paid: the app redeems it (POST /transaction/callback/daimo). */
  redeemable?: boolean;
}

/**
 * A decimal amount as typed or sent: digits with at most one point, at most 30 decimals, at most 40 characters.
 * Refuses 0 (the caller checks > 0), negatives, NaN, exponents (1e-30), 2^64 as a number, and anything not a string.
 */
export const AmountText = z
  .string()
  .trim()
  .max(40)
  .regex(/^\d{1,20}(\.\d{1,30})?$/, 'Amount must be a positive decimal number like 5 or 0.25')
  .refine((s) => /[1-9]/.test(s), 'Amount must be above 0');

export const CreatePaymentSchema = z.object({ amount: AmountText, network: z.string().max(20).optional() }).strict();
export type CreatePaymentRequest = z.infer<typeof CreatePaymentSchema>;

export const DaimoCallbackSchema = z
  .object({
    type: z.literal('redeem_payment'),
    paymentNonce: z.string().min(8).max(100),
    payment: z.object({ id: z.string().min(1).max(200) }).passthrough(),
  })
  .strict();

export const RechargeSettingsSchema = z
  .object({ enabled: z.boolean(), threshold: AmountText.or(z.literal('0')), target: AmountText.or(z.literal('0')) })
  .strict();
export type RechargeSettingsRequest = z.infer<typeof RechargeSettingsSchema>;

// ---- invitations (spec 001 sections 3 and 8) ----

export type InvitationStatus = 'active' | 'redeemed' | 'expired' | 'blocked';
export interface Invitation {
  amount: string;
  redeemCode: string;
  recipientName: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
  status: InvitationStatus;
  currency: 'USD' | 'XNO';
}

/** The error codes of section 8; each maps to its orange 5 s notice in the view. */
export type InvitationErrorCode =
  | 'InvalidAmount'
  | 'InsufficientBalance'
  | 'InvalidExpiresAt'
  | 'NoAmountToRedeem'
  | 'InviteNotFound'
  | 'InviteRedeemed'
  | 'MissingRedeemCode';

/** Amounts are decimal strings; expiresAt in milliseconds. Loose here so that a bad value gets its own error code. */
export const InvitationCreateSchema = z
  .object({
    amount: z.unknown(),
    currency: z.enum(['USD', 'XNO']).default('USD'),
    recipientName: z.string().max(100).default(''),
    expiresAt: z.unknown(),
  })
  .strict();
export const InvitationUpdateSchema = z
  .object({
    redeemCode: z.string().max(64),
    amount: z.unknown().optional(),
    recipientName: z.string().max(100).optional(),
    expiresAt: z.unknown().optional(),
  })
  .strict();
export const InvitationRedeemSchema = z.object({ redeemCode: z.string().max(64).optional() }).strict();

/** Invitations last at most a year. */
export const INVITATION_MAX_LIFETIME_MS = 366 * 24 * 3_600_000;

// ---- nano wallet (spec 001 section 7) ----

export interface NanoConfig {
  /** The session's deposit address, or null when the operator configured no seed. */
  address: string | null;
  /** Node websockets the engine subscribes to, in order (the next one after 5 s). */
  websockets: string[];
}
export const NanoConvertSchema = z.object({ amount: AmountText.optional() }).strict();
export const NanoRepresentativeSchema = z.object({ representative: z.string().min(60).max(70) }).strict();
export const NanoConfirmSchema = z.object({ hash: z.string().regex(/^[0-9A-Fa-f]{64}$/) }).strict();
/** POST /nano/return-address: the user's own nano account (the session's nanoReturnAddress), or null to forget it. */
export const NanoReturnAddressSchema = z.object({ address: z.string().trim().min(60).max(70).nullable() }).strict();
/** A nano account as typed: the checksum is checked by the gateway (nanocurrency's checkAddress). */
export const NANO_ADDRESS_PATTERN = /^(nano|xrb)_[13][13456789abcdefghijkmnopqrstuwxyz]{59}$/;

// ---- the recovery code (beyond the spec) ----

export const DisplayCurrencySchema = z.object({ displayCurrency: z.enum(['USD', 'XNO']) }).strict();
export const RecoverSchema = z.object({ code: z.string().trim().min(1).max(64) }).strict();
/** Recovery codes: 25 characters of Crockford base32 in groups of 5 (125 bits). */
export const RECOVERY_CODE_PATTERN = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/;
