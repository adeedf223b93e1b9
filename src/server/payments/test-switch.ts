/**
 * Is the built-in test payment provider live? Its checkout's Pay button adds balance with no money moving, so it
 * must never sit beside anything that costs the operator money unless the operator said so (issue 15, item 5):
 *
 *   PARLEY_TEST_PAYMENTS=true   on, whatever else is configured (loudly warned at startup);
 *   PARLEY_TEST_PAYMENTS=false  off;
 *   unset                       on only for a gateway that listens on loopback alone (no trusted proxy header, no
 *                               public URL elsewhere), has no real payment provider and offers nothing priced; so
 *                               `npm start` on a fresh machine still has it, and a gateway with priced models never.
 *
 * "Priced" is anything a balance pays a configured provider for: a chat model with a price, an image or video model
 * with a price, a speech voice or transcription with a price, a web-search provider. Decided from the configuration
 * alone (prices are configured, never discovered), before the gateway listens.
 */
import type { GatewayConfig } from '../config';
import { isLoopback } from '../guards/client-address';
import { parseDecimal } from '../money/amounts';
import type { SearchConfig } from '../web/search-config';
import type { SpeechConfig } from '../speech/config';
import { speechModel } from '../../protocol/speech-catalogue';

export interface TestPaymentsDecision {
  on: boolean;
  /** Why, in a few words, for the startup line. */
  reason: string;
}

const positive = (price: string): boolean => {
  try {
    return parseDecimal(price, 12) > 0n;
  } catch {
    return true; // unreadable: counted as priced (config.ts refuses it anyway)
  }
};

/** What this configuration charges a balance for, one label each (empty = everything is free). */
export function pricedServices(config: GatewayConfig, speech: SpeechConfig | null, search: SearchConfig | null): string[] {
  const out: string[] = [];
  for (const u of config.upstreams) {
    for (const [model, p] of u.pricing) if (p.inputMicroPerM > 0n || p.outputMicroPerM > 0n) out.push(`chat model ${model} (${u.name})`);
  }
  for (const [kind, list] of [['image', config.media.images], ['video', config.media.videos]] as const) {
    for (const p of list) for (const [model, price] of p.pricing) if (price > 0n) out.push(`${kind} model ${model} (${p.name})`);
  }
  for (const p of speech?.providers ?? []) {
    for (const id of p.models.keys()) {
      const price = p.pricing.get(id) ?? speechModel(id)?.costPerThousandChars ?? '0';
      if (positive(price)) out.push(`speech model ${id} (${p.name})`);
    }
  }
  if (speech?.transcribe && speech.transcribe.microPerMinute > 0n) out.push(`transcription (${speech.transcribe.name})`);
  if (search?.provider) out.push(`web search (${search.provider.name})`);
  return out;
}

/** Listens on loopback alone: a loopback host, no proxy in front (no trusted header), no public URL elsewhere. */
export function loopbackOnly(host: string, config: GatewayConfig): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h !== 'localhost' && !isLoopback(h)) return false;
  if (config.guards.trustedProxyHeader !== null) return false;
  const pub = config.money.publicUrl;
  if (pub !== null) {
    const name = new URL(pub).hostname.replace(/^\[|\]$/g, '');
    if (name !== 'localhost' && !isLoopback(name)) return false;
  }
  return true;
}

export function decideTestPayments(config: GatewayConfig, host: string, priced: readonly string[]): TestPaymentsDecision {
  const set = config.money.testPaymentsSwitch;
  if (set === true) return { on: true, reason: 'PARLEY_TEST_PAYMENTS=true' };
  if (set === false) return { on: false, reason: 'PARLEY_TEST_PAYMENTS=false' };
  if (config.money.btcpay || config.money.stripe) return { on: false, reason: 'a real payment provider is configured' };
  if (!loopbackOnly(host, config)) return { on: false, reason: `the gateway is reachable beyond loopback (${host})` };
  if (priced.length > 0) return { on: false, reason: `priced services are configured: ${priced.slice(0, 5).join(', ')}${priced.length > 5 ? ', ...' : ''}` };
  return { on: true, reason: 'a loopback-only gateway with nothing priced' };
}

/** The startup lines: which providers are live, and a warning when the test provider is. */
export function paymentsBanner(live: readonly string[], decision: TestPaymentsDecision, host: string): string[] {
  const lines = [`payments: live providers: ${live.length > 0 ? live.join(', ') : 'none (deposits are unavailable)'}`];
  if (decision.on) {
    lines.push(
      `WARNING: the built-in TEST payment provider is live (${decision.reason}): its checkout's Pay button adds balance and no money moves.` +
        (isLoopback(host.replace(/^\[|\]$/g, '')) || host === 'localhost' ? '' : ` This gateway listens on ${host}: anyone who reaches it can add balance.`),
    );
  } else lines.push(`payments: the test payment provider is off (${decision.reason}); PARLEY_TEST_PAYMENTS=true turns it on`);
  return lines;
}
