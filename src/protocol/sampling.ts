/**
 * The model settings a user sets per text model (spec 000 section 7: the sampling fields of the multi-model call,
 * which stream-gpt takes too): their wire names, ranges and defaults, shared by the "Model settings" panel, the
 * engine's request builders and the gateway's per-upstream filter. Pure.
 *
 * `maxTokens` is the reply's length limit: every model takes it (the gateway's hold is sized from it). The others
 * are passed to an upstream only when it takes them (ModelInfo.parameters, src/server/providers/sampling.ts).
 */
import { z } from 'zod';

import { clampSetting, MAX_STOP_SEQUENCES, MAX_TOKENS_LIMIT, NUMERIC_SAMPLING, REASONING_EFFORTS, SAMPLING_SPECS, type ReasoningEffort, type SamplingName } from './sampling-limits';

export * from './sampling-limits';

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
