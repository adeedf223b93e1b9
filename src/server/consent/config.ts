/**
 * Who is asked for analytics consent (spec 001 sections 4 and 7; docs/gateway.md "Consent"):
 *  - PARLEY_CONSENT_REQUIRED=ads (default): visitors who arrive from a tracked source (the client's
 *    require-for-ads call) are asked; everyone else is "not required", and nothing is tracked for them either.
 *  - always: every session starts "pending" and sees the banner.
 *  - never: nobody is asked (status stays "not required"; nothing is tracked).
 * PARLEY_CONSENT_POLICY_VERSION names the policy a decision was made under (default 2026-11-24).
 */
import type { Env } from '../env-vars';

export type ConsentMode = 'ads' | 'always' | 'never';

export interface ConsentConfig {
  mode: ConsentMode;
  policyVersion: string;
}

export const DEFAULT_CONSENT_CONFIG: ConsentConfig = { mode: 'ads', policyVersion: '2026-11-24' };

export function loadConsentConfig(env: Env): ConsentConfig {
  const raw = (env.PARLEY_CONSENT_REQUIRED ?? '').trim().toLowerCase();
  if (raw !== '' && raw !== 'ads' && raw !== 'always' && raw !== 'never') {
    throw new Error(`PARLEY_CONSENT_REQUIRED must be ads, always or never (got '${raw}')`);
  }
  const version = (env.PARLEY_CONSENT_POLICY_VERSION ?? '').trim();
  if (version.length > 64) throw new Error('PARLEY_CONSENT_POLICY_VERSION is longer than 64 characters');
  return { mode: raw === '' ? DEFAULT_CONSENT_CONFIG.mode : raw, policyVersion: version === '' ? DEFAULT_CONSENT_CONFIG.policyVersion : version };
}
