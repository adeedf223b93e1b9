/**
 * Which model settings (src/protocol/sampling.ts) an upstream model takes, and the request's settings cut down to
 * them. An OpenAI-compatible upstream answers 400 to a field it does not know (OpenAI itself) or to one its model
 * refuses (OpenAI's reasoning models refuse temperature, top_p and the penalties), so the gateway sends each
 * upstream only what it takes and drops the rest; what it takes is listed per model in the catalogue
 * (ModelInfo.parameters), so the "Model settings" panel offers only those. docs/gateway.md "Model settings".
 */
import { NUMERIC_SAMPLING, SAMPLING_NAMES, type Sampling, type SamplingName } from '../../protocol/sampling';

/** What OpenAI's chat completions take: also what an unknown OpenAI-compatible server is assumed to take. */
export const OPENAI_PARAMS: readonly SamplingName[] = ['temperature', 'top_p', 'frequency_penalty', 'presence_penalty', 'stop', 'reasoning_effort'];
/** OpenRouter takes every one (it drops what the model behind it does not support). */
export const OPENROUTER_PARAMS: readonly SamplingName[] = SAMPLING_NAMES;
/** The built-in offline engine is deterministic: it takes none. */
export const OFFLINE_PARAMS: readonly SamplingName[] = [];

/** The settings an upstream takes by its URL, unless its configuration lists them (`params`). */
export function upstreamParams(url: string, configured: readonly SamplingName[] | null): readonly SamplingName[] {
  if (configured !== null) return configured;
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // an invalid URL never reaches here (config.ts checks it); the OpenAI set is the safe answer
  }
  return host === 'openrouter.ai' || host.endsWith('.openrouter.ai') ? OPENROUTER_PARAMS : OPENAI_PARAMS;
}

/** The model's own id without a vendor prefix ('openai/o3-mini' -> 'o3-mini'). */
function bareId(model: string): string {
  const slash = model.lastIndexOf('/');
  return (slash >= 0 ? model.slice(slash + 1) : model).toLowerCase();
}

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5 but not gpt-5-chat) and DeepSeek's reasoner: they refuse
 * temperature, top_p and the penalties (HTTP 400 "Unsupported parameter"), and only they take reasoning_effort.
 */
export function isReasoningModel(model: string): boolean {
  const id = bareId(model);
  return /^o[1-9](-|$)/.test(id) || (/^gpt-5(\.\d+)?(-|$)/.test(id) && !id.includes('-chat')) || id === 'deepseek-reasoner';
}

const REFUSED_BY_REASONING: ReadonlySet<SamplingName> = new Set(['temperature', 'top_p', 'frequency_penalty', 'presence_penalty', 'top_k', 'min_p', 'top_a', 'repetition_penalty']);

/** Anthropic's models take a temperature up to 1, not 2. */
const ANTHROPIC_MAX_TEMPERATURE = 1;

/** The settings one model of an upstream takes. */
export function modelParams(upstream: readonly SamplingName[], model: string): SamplingName[] {
  const reasoning = isReasoningModel(model);
  return upstream.filter((p) => (reasoning ? !REFUSED_BY_REASONING.has(p) : p !== 'reasoning_effort'));
}

/**
 * The request's settings an upstream model takes: the others dropped, each clamped to the model's own range
 * (the request was already checked against the widest one). maxTokens is not here: the route sizes it.
 */
export function passSampling(settings: Sampling, accepts: readonly SamplingName[], model: string): Sampling {
  const out: Sampling = {};
  const takes = new Set(accepts);
  for (const name of NUMERIC_SAMPLING) {
    const v = settings[name];
    if (v === undefined || !takes.has(name)) continue;
    out[name] = name === 'temperature' && bareId(model).includes('claude') ? Math.min(v, ANTHROPIC_MAX_TEMPERATURE) : v;
  }
  if (settings.reasoning_effort !== undefined && takes.has('reasoning_effort')) out.reasoning_effort = settings.reasoning_effort;
  if (settings.stop !== undefined && takes.has('stop')) out.stop = settings.stop;
  return out;
}

/** The sampling part of a chat-completions body: `,"name":value` for each setting, in a fixed order. */
export function samplingJson(settings: Sampling): string {
  let tail = '';
  for (const name of NUMERIC_SAMPLING) {
    const v = settings[name];
    if (v !== undefined) tail += `,"${name}":${JSON.stringify(v)}`;
  }
  if (settings.reasoning_effort !== undefined) tail += `,"reasoning_effort":${JSON.stringify(settings.reasoning_effort)}`;
  if (settings.stop !== undefined) tail += `,"stop":${JSON.stringify(settings.stop)}`;
  return tail;
}
