/**
 * The engine's client of the money calls (spec 001 section 7 and ours): same origin, cookie session. Every call
 * answers a Result: the JSON body, or the status and error body of a refusal (network failures are status 0), so
 * callers map each failure to the spec's notice without try/catch.
 */
import type { FiatPrices, Invitation, NanoConfig, PaymentLimits, PaymentMethodsResponse, PaymentStatus, PaymentTransaction } from '../../../protocol/payments';
import type { LocalSessionResponse } from '../../../protocol/api';
import type { FaucetClaim, FaucetStatus } from '../../../protocol/faucet';
import { noteGatewayAnswer } from '../../infra/signed-out';

export type Result<T> = { ok: true; value: T } | { ok: false; status: number; error: string; message: string; limit?: string };

export async function request<T>(method: string, path: string, body?: unknown): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      // State-changing calls say JSON even without a body (the gateway's cross-site guard).
      headers: method === 'GET' ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (e) {
    return { ok: false, status: 0, error: 'NETWORK', message: e instanceof Error ? e.message : String(e) };
  }
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  if (res.ok) return { ok: true, value: json as T };
  const b = (typeof json === 'object' && json !== null ? json : {}) as { error?: unknown; message?: unknown; limit?: unknown };
  noteGatewayAnswer(res.status, b.error);
  const out: Result<T> = { ok: false, status: res.status, error: typeof b.error === 'string' ? b.error : 'ERROR', message: typeof b.message === 'string' ? b.message : `HTTP ${res.status}` };
  if (typeof b.limit === 'string') out.limit = b.limit;
  return out;
}

const enc = encodeURIComponent;

export const money = {
  methods: () => request<PaymentMethodsResponse>('GET', '/api/payment-methods'),
  limits: (ticker: string) => request<PaymentLimits>('GET', `/api/transaction/limits/${enc(ticker)}`),
  fiatPrices: () => request<FiatPrices>('GET', '/api/get-fiat-prices'),
  nanoPrice: () => request<{ latestPrice: number }>('GET', '/get-nano-price'),
  create: (ticker: string, amount: string) => request<PaymentTransaction>('POST', `/transaction/create/${enc(ticker)}`, { amount }),
  createDaimo: (ticker: string, amount: string) => request<PaymentTransaction>('POST', `/transaction/create/daimo/${enc(ticker)}`, { amount }),
  status: (ticker: string, id: string) => request<{ status: PaymentStatus; redeemable?: boolean }>('GET', `/transaction/status/${enc(ticker)}/${enc(id)}`),
  daimoCallback: (id: string, paymentNonce: string) =>
    request<{ success: boolean }>('POST', '/transaction/callback/daimo', { type: 'redeem_payment', paymentNonce, payment: { id } }),
  recharge: (s: { enabled: boolean; threshold: string; target: string }) => request<unknown>('POST', '/user/recharge-settings', s),
  displayCurrency: (displayCurrency: 'USD' | 'XNO') => request<unknown>('POST', '/api/session/display-currency', { displayCurrency }),
  nanoAddress: () => request<NanoConfig>('POST', '/nano/deposit-address'),
  returnAddress: (address: string | null) => request<{ nanoReturnAddress: string | null }>('POST', '/nano/return-address', { address }),
  nanoConfirm: (hash: string) => request<{ credited: boolean; amount: string }>('POST', '/nano/confirm', { hash }),
  convert: (amount?: string) => request<{ success: boolean; amount: string; usd: string }>('POST', '/nano/convert-to-usd', amount === undefined ? {} : { amount }),
  receivables: () => request<{ receivable: string; credited: string[] }>('POST', '/check-receivables'),
  representative: () => request<{ representative: string }>('POST', '/get-representative'),
  changeRepresentative: (representative: string) => request<{ representative: string; hash: string | null }>('POST', '/nano/change-representative', { representative }),
  invitations: () => request<{ invitations: Invitation[] }>('GET', '/api/invitations'),
  createInvitation: (b: Record<string, unknown>) => request<{ invitation: Invitation }>('POST', '/invitations/create', b),
  updateInvitation: (b: Record<string, unknown>) => request<{ invitation: Invitation }>('POST', '/invitations/update', b),
  redeemInvitation: (redeemCode: string) => request<{ amount: string; currency: 'USD' | 'XNO' }>('POST', '/invitations/redeem', { redeemCode }),
  deleteInvitation: (code: string) => request<unknown>('DELETE', `/invitations/delete/${enc(code)}`),
  recoveryCode: () => request<{ code: string }>('POST', '/api/session/recovery-code'),
  signOutOthers: () => request<{ ok: true }>('POST', '/api/session/sign-out-others'),
  recover: (code: string) => request<LocalSessionResponse>('POST', '/auth/recover', { code }),
  faucet: () => request<FaucetStatus>('GET', '/nano/faucet'),
  claimFaucet: () => request<FaucetClaim>('POST', '/nano/faucet'),
  mergeCheck: () => request<{ canMigrate: boolean; hasRecoveryCode: boolean }>('GET', '/auth/account-merge-check'),
};
