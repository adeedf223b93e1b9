/**
 * Speech provider configuration (docs/speech.md). Every catalogue model (src/protocol/speech-catalogue.ts)
 * is offered only when a provider serves it; the built-in offline voice always is.
 *
 *   PARLEY_TTS_PROVIDERS='[{"name":"kokoro","kind":"openai","url":"http://localhost:8880/v1","models":{"Kokoro-82m":"kokoro"}},
 *     {"name":"openai","kind":"openai","url":"https://api.openai.com/v1","key":"sk-...","models":{"tts-1":"tts-1","gpt-4o-mini-tts":"gpt-4o-mini-tts"}},
 *     {"name":"elevenlabs","kind":"elevenlabs","url":"https://api.elevenlabs.io","key":"...","models":{"Elevenlabs-Turbo-V2.5":"eleven_turbo_v2_5"}}]'
 *   PARLEY_TRANSCRIBE_PROVIDER='{"name":"whisper","url":"http://localhost:8080/v1/audio/transcriptions","model":"whisper-1","pricePerMinute":"0.006"}'
 *
 * `models` maps a catalogue model id to the provider's own model id. `pricing` (USD per 1000 characters) overrides
 * the catalogue's price for this provider (a local Kokoro may be free: "0").
 */
import { z } from 'zod';
import { speechModel } from '../../protocol/speech-catalogue';
import { ConfigError, intVar, type Env } from '../env-vars';
import { AmountError, parseDecimal } from '../money/amounts';

const ProviderSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/),
  kind: z.enum(['openai', 'elevenlabs']),
  url: z.string().url(),
  key: z.string().optional().nullable(),
  models: z.record(z.string(), z.string().min(1).max(200)),
  pricing: z.record(z.string(), z.string()).optional(),
});

const TranscribeSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/),
  url: z.string().url(),
  key: z.string().optional().nullable(),
  model: z.string().min(1).max(200),
  /** USD per minute of audio; default 0 (a local whisper.cpp). */
  pricePerMinute: z.string().optional(),
});

export interface SpeechProviderConfig {
  name: string;
  kind: 'openai' | 'elevenlabs';
  url: string;
  key: string | null;
  /** Catalogue id -> provider model id. */
  models: Map<string, string>;
  /** Catalogue id -> price override, as a decimal string of USD per 1000 characters. */
  pricing: Map<string, string>;
}

export interface TranscribeProviderConfig {
  name: string;
  url: string;
  key: string | null;
  model: string;
  /** Micro-dollars per minute. */
  microPerMinute: bigint;
}

export interface SpeechConfig {
  providers: SpeechProviderConfig[];
  transcribe: TranscribeProviderConfig | null;
  /** How long POST /api/tts waits for the audio before answering 202 (PARLEY_TTS_SYNC_MS). */
  syncWaitMs: number;
  /** How long one provider call may take (PARLEY_TTS_TIMEOUT_MS). */
  providerTimeoutMs: number;
  /** How often the job runner looks for jobs a stopped gateway left (PARLEY_TTS_WORKER_MS). */
  workerMs: number;
}

function json(env: Env, name: string): unknown {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new ConfigError(`${name} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function issue(name: string, error: z.ZodError): ConfigError {
  const i = error.issues[0];
  return new ConfigError(`${name}: ${i ? `${i.path.join('.')} ${i.message}` : 'invalid'}`);
}

export function loadSpeechConfig(env: Env): SpeechConfig {
  const rawProviders = json(env, 'PARLEY_TTS_PROVIDERS');
  const providers: SpeechProviderConfig[] = [];
  if (rawProviders !== undefined) {
    const parsed = z.array(ProviderSchema).max(20).safeParse(rawProviders);
    if (!parsed.success) throw issue('PARLEY_TTS_PROVIDERS', parsed.error);
    for (const p of parsed.data) {
      for (const id of Object.keys(p.models)) {
        if (!speechModel(id)) throw new ConfigError(`PARLEY_TTS_PROVIDERS: ${p.name} names '${id}', which is not a model of the speech catalogue`);
      }
      const pricing = new Map<string, string>();
      for (const [id, price] of Object.entries(p.pricing ?? {})) {
        try {
          parseDecimal(price, 12, `PARLEY_TTS_PROVIDERS price of ${id}`);
        } catch (e) {
          throw new ConfigError(e instanceof AmountError ? e.message : String(e));
        }
        pricing.set(id, price.trim());
      }
      providers.push({ name: p.name, kind: p.kind, url: p.url.replace(/\/+$/, ''), key: p.key?.trim() || null, models: new Map(Object.entries(p.models)), pricing });
    }
  }
  const rawTranscribe = json(env, 'PARLEY_TRANSCRIBE_PROVIDER');
  let transcribe: TranscribeProviderConfig | null = null;
  if (rawTranscribe !== undefined) {
    const parsed = TranscribeSchema.safeParse(rawTranscribe);
    if (!parsed.success) throw issue('PARLEY_TRANSCRIBE_PROVIDER', parsed.error);
    let microPerMinute = 0n;
    try {
      microPerMinute = parseDecimal(parsed.data.pricePerMinute ?? '0', 6, 'PARLEY_TRANSCRIBE_PROVIDER pricePerMinute');
    } catch (e) {
      throw new ConfigError(e instanceof AmountError ? e.message : String(e));
    }
    transcribe = { name: parsed.data.name, url: parsed.data.url, key: parsed.data.key?.trim() || null, model: parsed.data.model, microPerMinute };
  }
  return {
    providers,
    transcribe,
    syncWaitMs: intVar(env, 'PARLEY_TTS_SYNC_MS', 20_000, 0, 300_000),
    providerTimeoutMs: intVar(env, 'PARLEY_TTS_TIMEOUT_MS', 120_000, 1_000, 600_000),
    workerMs: intVar(env, 'PARLEY_TTS_WORKER_MS', 5_000, 10, 600_000),
  };
}
