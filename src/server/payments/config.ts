/**
 * Configuration of the money side (docs/gateway.md, "Payments", "Nano", "Invitations", "Sessions"): payment
 * providers, rates, the nano seed and nodes, the recovery secret. Parsed from the environment like config.ts and
 * kept in its own file; a bad value stops the gateway at startup with a message naming the variable.
 */
import { checkAddress, checkSeed } from 'nanocurrency';
import { ConfigError, type Env, type RateLimit } from '../env-vars';
import { AmountError, parseDecimal } from '../money/amounts';
import { isTicker, type Ticker } from '../../protocol/payments';

export interface BtcpayConfig {
  url: string;
  apiKey: string;
  storeId: string;
  webhookSecret: string;
  /** Tickers this store accepts (PARLEY_BTCPAY_METHODS). */
  tickers: Ticker[];
}

export interface StripeConfig {
  apiUrl: string;
  secretKey: string;
  webhookSecret: string;
}

export interface NanoNodeConfig {
  /** 64 hex characters: the operator's seed; deposit addresses are derived from it by index. */
  seed: string;
  rpcUrls: string[];
  websocketUrls: string[];
  /** Representative of newly opened deposit accounts. */
  representative: string;
}

export interface MoneyConfig {
  /**
   * The built-in test provider (checkout page with Pay / Fail / Expire) is live. loadMoneyConfig turns it on only for
   * PARLEY_TEST_PAYMENTS=true; startGateway decides the unset case (payments/test-switch.ts).
   */
  testPayments: boolean;
  /** PARLEY_TEST_PAYMENTS as set: true, false, or null when unset. */
  testPaymentsSwitch: boolean | null;
  btcpay: BtcpayConfig | null;
  stripe: StripeConfig | null;
  /** Public base URL of this gateway (return links of the providers); null = the request's own origin. */
  publicUrl: string | null;
  /** USD per unit of each crypto ticker, micro-dollars (PARLEY_PAYMENT_RATES); USD is 1, XNO the nano price. */
  ratesUsdMicro: Map<Ticker, bigint>;
  /** Units of EUR and GBP per USD, micro-units (PARLEY_EUR_PER_USD, PARLEY_GBP_PER_USD). */
  eurPerUsdMicro: bigint;
  gbpPerUsdMicro: bigint;
  nano: NanoNodeConfig | null;
  /** Key of the recovery-code HMAC; null = a random key kept in the database (gateway_secrets). */
  recoverySecret: string | null;
  /** Wrong recovery codes and redeem attempts per client address. */
  guessRate: RateLimit;
  /** How often pending payments, auto-recharges and invitation expiry are swept, ms. */
  sweepMs: number;
  /** Support address in the Daimo failure notice. */
  supportEmail: string;
  /** What the nano faucet may give away in all, raw (PARLEY_NANO_FAUCET_XNO); 0 = no faucet (nano/faucet.ts). */
  faucetRaw: bigint;
  /** Faucet claims per client address. */
  faucetRate: RateLimit;
}

function url(raw: string, name: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got '${raw}'`);
  }
  const ok = name.includes('WS') ? u.protocol === 'ws:' || u.protocol === 'wss:' : u.protocol === 'http:' || u.protocol === 'https:';
  if (!ok) throw new ConfigError(`${name} has the wrong scheme: '${raw}'`);
  return u.toString().replace(/\/+$/, '');
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function decimalVar(env: Env, name: string, def: string): bigint {
  try {
    const v = parseDecimal(env[name]?.trim() || def, 6, name);
    if (v <= 0n) throw new ConfigError(`${name} must be above 0`);
    return v;
  } catch (e) {
    throw new ConfigError(e instanceof AmountError ? e.message : String(e));
  }
}

/** PARLEY_NANO_FAUCET_XNO: unset or 0 = no faucet (the default). */
function faucetFunds(env: Env): bigint {
  const raw = env.PARLEY_NANO_FAUCET_XNO?.trim();
  if (!raw) return 0n;
  try {
    return parseDecimal(raw, 30, 'PARLEY_NANO_FAUCET_XNO');
  } catch (e) {
    throw new ConfigError(e instanceof AmountError ? e.message : String(e));
  }
}

function boolean(env: Env, name: string, def: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return def;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  return n;
}

function rates(env: Env): Map<Ticker, bigint> {
  const raw = env.PARLEY_PAYMENT_RATES?.trim();
  const out = new Map<Ticker, bigint>();
  if (!raw) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('PARLEY_PAYMENT_RATES must be JSON like {"BTC":"60000","ZEC":"30"}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError('PARLEY_PAYMENT_RATES must be a JSON object');
  for (const [k, v] of Object.entries(parsed)) {
    if (!isTicker(k)) throw new ConfigError(`PARLEY_PAYMENT_RATES: unknown ticker '${k}'`);
    out.set(k, decimalVar({ X: typeof v === 'number' ? String(v) : String(v) }, 'X', '0'));
  }
  return out;
}

export function loadMoneyConfig(env: Env): MoneyConfig {
  let btcpay: BtcpayConfig | null = null;
  if (env.PARLEY_BTCPAY_URL?.trim()) {
    const need = ['PARLEY_BTCPAY_KEY', 'PARLEY_BTCPAY_STORE', 'PARLEY_BTCPAY_WEBHOOK_SECRET'].filter((n) => !env[n]?.trim());
    if (need.length > 0) throw new ConfigError(`PARLEY_BTCPAY_URL needs ${need.join(', ')}`);
    const tickers = list(env, 'PARLEY_BTCPAY_METHODS');
    for (const t of tickers) if (!isTicker(t)) throw new ConfigError(`PARLEY_BTCPAY_METHODS: unknown ticker '${t}'`);
    btcpay = {
      url: url(env.PARLEY_BTCPAY_URL, 'PARLEY_BTCPAY_URL'),
      apiKey: env.PARLEY_BTCPAY_KEY!.trim(),
      storeId: env.PARLEY_BTCPAY_STORE!.trim(),
      webhookSecret: env.PARLEY_BTCPAY_WEBHOOK_SECRET!.trim(),
      tickers: tickers.length > 0 ? (tickers as Ticker[]) : ['BTC', 'BTC-LN', 'LTC', 'XMR'],
    };
  }
  let stripe: StripeConfig | null = null;
  if (env.PARLEY_STRIPE_KEY?.trim()) {
    if (!env.PARLEY_STRIPE_WEBHOOK_SECRET?.trim()) throw new ConfigError('PARLEY_STRIPE_KEY needs PARLEY_STRIPE_WEBHOOK_SECRET');
    stripe = {
      apiUrl: url(env.PARLEY_STRIPE_API_URL?.trim() || 'https://api.stripe.com', 'PARLEY_STRIPE_API_URL'),
      secretKey: env.PARLEY_STRIPE_KEY.trim(),
      webhookSecret: env.PARLEY_STRIPE_WEBHOOK_SECRET.trim(),
    };
  }
  let nano: NanoNodeConfig | null = null;
  const seed = env.PARLEY_NANO_SEED?.trim();
  if (seed) {
    if (!checkSeed(seed.toUpperCase())) throw new ConfigError('PARLEY_NANO_SEED must be 64 hexadecimal characters');
    const rpcUrls = list(env, 'PARLEY_NANO_RPC_URLS').map((u) => url(u, 'PARLEY_NANO_RPC_URLS'));
    if (rpcUrls.length === 0) throw new ConfigError('PARLEY_NANO_SEED needs PARLEY_NANO_RPC_URLS (a node to confirm deposits against)');
    const representative = env.PARLEY_NANO_REPRESENTATIVE?.trim() || 'nano_3arg3asgtigae3xckabaaewkx3bzsh7nwz7jkmjos79ihyaxwphhm6qgjps4';
    if (!checkAddress(representative)) throw new ConfigError('PARLEY_NANO_REPRESENTATIVE must be a nano address');
    nano = {
      seed: seed.toUpperCase(),
      rpcUrls,
      websocketUrls: list(env, 'PARLEY_NANO_WS_URLS').map((u) => url(u, 'PARLEY_NANO_WS_URLS')),
      representative,
    };
  }
  // The test provider mints money with a button: on here only when asked for; unset, startGateway decides
  // (test-switch.ts: a loopback-only gateway with nothing priced).
  const testPaymentsSwitch = env.PARLEY_TEST_PAYMENTS?.trim() ? boolean(env, 'PARLEY_TEST_PAYMENTS', false) : null;
  return {
    testPayments: testPaymentsSwitch === true,
    testPaymentsSwitch,
    btcpay,
    stripe,
    publicUrl: env.PARLEY_PUBLIC_URL?.trim() ? url(env.PARLEY_PUBLIC_URL, 'PARLEY_PUBLIC_URL') : null,
    ratesUsdMicro: rates(env),
    eurPerUsdMicro: decimalVar(env, 'PARLEY_EUR_PER_USD', '0.92'),
    gbpPerUsdMicro: decimalVar(env, 'PARLEY_GBP_PER_USD', '0.79'),
    nano,
    recoverySecret: env.PARLEY_RECOVERY_SECRET?.trim() || null,
    guessRate: {
      burst: int(env, 'PARLEY_GUESS_RATE_BURST', 10, 1, 1_000_000),
      perMinute: int(env, 'PARLEY_GUESS_RATE_PER_MIN', 5, 0, 60_000_000),
    },
    sweepMs: int(env, 'PARLEY_MONEY_SWEEP_MS', 5_000, 100, 3_600_000),
    supportEmail: env.PARLEY_SUPPORT_EMAIL?.trim() || 'support@parley.invalid',
    faucetRaw: faucetFunds(env),
    faucetRate: {
      burst: int(env, 'PARLEY_FAUCET_RATE_BURST', 3, 1, 1_000_000),
      perMinute: int(env, 'PARLEY_FAUCET_RATE_PER_MIN', 1, 0, 60_000_000),
    },
  };
}
