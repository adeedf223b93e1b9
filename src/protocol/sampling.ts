/**
 * The model settings a user sets per text model (spec 000 section 7: the sampling fields of the multi-model call,
 * which stream-gpt takes too): their wire names, ranges and defaults, shared by the "Model settings" panel, the
 * engine's request builders and the gateway's per-upstream filter. Pure.
 *
 * `maxTokens` is the reply's length limit: every model takes it (the gateway's hold is sized from it). The others
 * are passed to an upstream only when it takes them (ModelInfo.parameters, src/server/providers/sampling.ts).
 */
import { z } from 'zod';

export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** The numeric settings, in the panel's order. */
export const NUMERIC_SAMPLING = ['temperature', 'top_p', 'top_k', 'frequency_penalty', 'presence_penalty', 'repetition_penalty', 'min_p', 'top_a'] as const;
export type NumericSamplingName = (typeof NUMERIC_SAMPLING)[number];
/** Every setting an upstream may or may not take (maxTokens is not one: all take it). */
export const SAMPLING_NAMES = [...NUMERIC_SAMPLING, 'reasoning_effort', 'stop'] as const;
export type SamplingName = (typeof SAMPLING_NAMES)[number];

export interface NumericSamplingSpec {
  label: string;
  min: number;
  max: number;
  step: number;
  /** What the model uses when the setting is not sent. */
  default: number;
  integer?: boolean;
  hint: string;
}

export const SAMPLING_SPECS: Record<NumericSamplingName, NumericSamplingSpec> = {
  temperature: { label: 'Temperature', min: 0, max: 2, step: 0.1, default: 1, hint: 'Higher is more varied, lower more focused.' },
  top_p: { label: 'Top P', min: 0, max: 1, step: 0.05, default: 1, hint: 'Only the most likely words whose chances add up to this.' },
  top_k: { label: 'Top K', min: 0, max: 10_000, step: 1, default: 0, integer: true, hint: 'Only the K most likely words (0: no limit).' },
  frequency_penalty: { label: 'Frequency penalty', min: -2, max: 2, step: 0.1, default: 0, hint: 'Above 0 repeats words less often.' },
  presence_penalty: { label: 'Presence penalty', min: -2, max: 2, step: 0.1, default: 0, hint: 'Above 0 moves on to new topics sooner.' },
  repetition_penalty: { label: 'Repetition penalty', min: 0, max: 2, step: 0.05, default: 1, hint: 'Above 1 repeats itself less.' },
  min_p: { label: 'Min P', min: 0, max: 1, step: 0.01, default: 0, hint: 'Leaves out words far less likely than the best one.' },
  top_a: { label: 'Top A', min: 0, max: 1, step: 0.01, default: 0, hint: 'Leaves out words by how sure the model is of the best one.' },
};

/** Max tokens of one reply: the gateway's bound (StreamGptRequestSchema). */
export const MAX_TOKENS_LIMIT = 1_000_000;
/** Stop sequences: at most 4, each at most 200 characters (OpenAI's limits). */
export const MAX_STOP_SEQUENCES = 4;

/** The sampling fields of a request, as both chat calls take them (spec 000 section 7). */
export const samplingShape = {
  maxTokens: z.number().int().positive().max(MAX_TOKENS_LIMIT).optional(),
  temperature: z.number().min(SAMPLING_SPECS.temperature.min).max(SAMPLING_SPECS.temperature.max).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).max(10_000).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  repetition_penalty: z.number().min(0).max(2).optional(),
  min_p: z.number().min(0).max(1).optional(),
  top_a: z.number().min(0).max(1).optional(),
  reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
  stop: z.union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(MAX_STOP_SEQUENCES)]).optional(),
};
/** Unknown keys are dropped (zod's default), so a newer client's extra setting never reaches an upstream. */
export const SamplingSchema = z.object(samplingShape);
export type Sampling = z.infer<typeof SamplingSchema>;

/** A number clamped to a setting's range (and rounded for an integer one); null when it is not a finite number. */
export function clampSetting(name: NumericSamplingName, value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const spec = SAMPLING_SPECS[name];
  const v = Math.min(spec.max, Math.max(spec.min, value));
  return spec.integer ? Math.round(v) : v;
}

/** Stored settings (any shape: they come from the event log) read as the sampling fields to send, clamped. */
export function samplingFromSettings(settings: Readonly<Record<string, unknown>>, accepts: readonly SamplingName[] | undefined): Sampling {
  const out: Sampling = {};
  const takes = (n: SamplingName) => accepts === undefined || accepts.includes(n);
  for (const name of NUMERIC_SAMPLING) {
    const v = clampSetting(name, settings[name]);
    if (v !== null && takes(name)) out[name] = v;
  }
  const effort = settings.reasoning_effort;
  if (typeof effort === 'string' && (REASONING_EFFORTS as readonly string[]).includes(effort) && takes('reasoning_effort')) out.reasoning_effort = effort as ReasoningEffort;
  const stop = settings.stop;
  if (typeof stop === 'string' && stop.length > 0 && takes('stop')) out.stop = stop.slice(0, 200);
  const max = settings.maxTokens;
  if (typeof max === 'number' && Number.isFinite(max) && max >= 1) out.maxTokens = Math.min(MAX_TOKENS_LIMIT, Math.round(max));
  return out;
}
