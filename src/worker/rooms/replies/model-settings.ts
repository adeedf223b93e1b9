/**
 * The model settings a chat request carries (spec 000 section 7): what the user set in a model's "Model settings"
 * panel (modelSettings.changed events, per model id), cut to what the model takes (ModelInfo.parameters) and
 * clamped to each setting's range (src/protocol/sampling.ts), plus the request's recommendedTier.
 */
import type { ModelInfo } from '../../../protocol/api';
import type { ModelSettings } from '../../../events/model';
import { samplingFromSettings, type Sampling } from '../../../protocol/sampling';
import { foldModelSettings, MODEL_SETTINGS_EVENT } from '../../../projections/model-settings';
import type { EngineCore } from '../../core';

/** Every model's settings as the log has them. */
export async function allModelSettings(core: EngineCore): Promise<Record<string, ModelSettings>> {
  const events = await core.db.events.where('type').equals(MODEL_SETTINGS_EVENT).toArray();
  return foldModelSettings(events as never);
}

/**
 * Spec 000 section 7 `recommendedTier`: the tier of the model the request is for as the engine's catalogue has it,
 * 'free' or 'paid' (docs/protocol.md). The gateway logs a request whose tier differs from its own price list.
 */
export function recommendedTier(model: Pick<ModelInfo, 'free'>): 'free' | 'paid' {
  return model.free ? 'free' : 'paid';
}

/** One model's request settings: its own maxTokens or the preference's, and the sampling it takes. */
export function requestSettings(settings: ModelSettings | undefined, model: Pick<ModelInfo, 'parameters'>, preferenceMaxTokens: number): Sampling & { maxTokens: number } {
  const sampling = samplingFromSettings((settings ?? {}) as Record<string, unknown>, model.parameters ?? []);
  return { ...sampling, maxTokens: sampling.maxTokens ?? preferenceMaxTokens };
}
