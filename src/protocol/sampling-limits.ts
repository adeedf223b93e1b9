/**
 * The model settings' names, ranges and defaults (spec 000 section 7), without their wire schema: what the view's
 * "Model settings" panel needs, kept free of zod so that the first page does not load it (sampling.ts adds the
 * schema and re-exports these). Pure.
 */
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

/** A number clamped to a setting's range (and rounded for an integer one); null when it is not a finite number. */
export function clampSetting(name: NumericSamplingName, value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const spec = SAMPLING_SPECS[name];
  const v = Math.min(spec.max, Math.max(spec.min, value));
  return spec.integer ? Math.round(v) : v;
}
