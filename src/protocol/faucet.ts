/**
 * The nano faucet (spec 001 sections 6 and 9, "free faucet of 0.1 Nano"): where the operator enables and funds it
 * (PARLEY_NANO_FAUCET_XNO, docs/configuration.md), each session may claim 0.1 XNO once, once per client address.
 * The wire shapes and the user-facing texts; the gateway side is src/server/nano/faucet.ts.
 */

/** Spec 001 section 9: 0.1 nano per claim. */
export const FAUCET_CLAIM_XNO = '0.1';

/** GET /nano/faucet. */
export interface FaucetStatus {
  /** The operator turned the faucet on (funds above 0). */
  enabled: boolean;
  /** XNO per claim. */
  amount: string;
  /** This session has claimed. */
  claimed: boolean;
  /** What is left of the operator's funds covers no further claim. */
  empty: boolean;
}

/** POST /nano/faucet: the claim was credited through the ledger. */
export interface FaucetClaim {
  amount: string;
  /** The session's nano balance after the claim, XNO. */
  nanoBalance: string;
}

/** Refusals of POST /nano/faucet, by error code (ours: the spec quotes none). */
export const FAUCET_TEXT = {
  claimed: (amount: string) => `${amount} XNO was added to your balance.`,
  claimedTitle: 'Free nano received',
  failedTitle: 'No free nano',
  ALREADY_CLAIMED: 'This session has already had its free nano.',
  ADDRESS_USED: 'Free nano was already claimed from your network address.',
  FAUCET_EMPTY: 'The faucet is empty for now.',
  FAUCET_OFF: 'There is no nano faucet on this server.',
  RATE_LIMITED: 'Too many claims from your network address. Try again later.',
} as const;

export type FaucetRefusal = 'ALREADY_CLAIMED' | 'ADDRESS_USED' | 'FAUCET_EMPTY' | 'FAUCET_OFF';

export function isFaucetRefusal(code: string): code is FaucetRefusal {
  return code === 'ALREADY_CLAIMED' || code === 'ADDRESS_USED' || code === 'FAUCET_EMPTY' || code === 'FAUCET_OFF';
}
