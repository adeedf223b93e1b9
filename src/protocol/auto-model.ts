/**
 * The "Auto" model (spec 000 section 3: a message's `isAutoModel` and `autoModelSelectedModel`): a choice in the
 * model picker that is not a model; for each prompt the engine picks one from the catalogue, the cheapest that can
 * do what the prompt needs, and records it on the message. Pure and deterministic: the same catalogue and needs
 * give the same model (the choice is then kept in the log, so a replay never chooses again).
 */
import type { ModelInfo } from './api';
import { IMAGE_LINES_CAPABILITY } from './image-rules';
import { takesImages } from './vision';

/** The picker's value for Auto (and what a send carries as its model). */
export const AUTO_MODEL_ID = 'auto';
/** Its name in the picker; a reply made by it is headed "Auto · <model name>". */
export const AUTO_MODEL_NAME = 'Auto';
/** The line under it in the picker. */
export const AUTO_MODEL_DESCRIPTION = 'Picks the cheapest model that can answer each message';

/** What one prompt needs of a model. */
export interface AutoNeeds {
  /** Images go with it (a model that takes images inline; else they are described for it). */
  vision: boolean;
  /** Web search is on (a model the catalogue marks 'web' when there is one; else any: the engine searches). */
  web: boolean;
  /** Estimated tokens of the request (history and prompt) plus the room kept for the reply. */
  tokens: number;
  /** The balance can hold a paid model. */
  canUsePaid: boolean;
}

/** USD per million tokens, input and output together (free = 0): the order "cheapest" goes by. */
export function autoPrice(m: Pick<ModelInfo, 'free' | 'pricing'>): number {
  if (m.free) return 0;
  const n = Number(m.pricing.input) + Number(m.pricing.output);
  return Number.isFinite(n) ? n : Number.POSITIVE_INFINITY;
}

/** The label of a reply Auto answered: "Auto · <model name>". */
export function autoReplyLabel(modelName: string): string {
  return `${AUTO_MODEL_NAME} · ${modelName}`;
}

/**
 * The model Auto picks for a prompt, or undefined when the catalogue has no text model. In order, the first rule
 * that leaves a candidate decides: the models that meet every need and the balance can pay; then (no such model)
 * without the vision need (the images are described for a model that does not take them) and then without the
 * context need (older messages are left out to fit); last, the cheapest paid model that meets the needs (the
 * balance check then asks for funds as for any paid model). Among candidates: a provider's model before the
 * built-in offline one, then the lowest price, then the catalogue's default model, the longest context, the id.
 */
export function chooseAutoModel(models: readonly ModelInfo[], defaultModel: string, needs: AutoNeeds): ModelInfo | undefined {
  const text = models.filter((m) => m.modality === 'text' && m.id !== AUTO_MODEL_ID && !m.capabilities.includes(IMAGE_LINES_CAPABILITY));
  if (text.length === 0) return undefined;
  const anyWeb = needs.web && text.some((m) => m.capabilities.includes('web'));
  const fits = (m: ModelInfo) => m.contextLength === undefined || needs.tokens <= m.contextLength;
  const sees = (m: ModelInfo) => !needs.vision || takesImages(m);
  const webs = (m: ModelInfo) => !anyWeb || m.capabilities.includes('web');
  const affordable = (m: ModelInfo) => needs.canUsePaid || m.free;
  const rules: ((m: ModelInfo) => boolean)[] = [
    (m) => affordable(m) && sees(m) && webs(m) && fits(m),
    (m) => affordable(m) && webs(m) && fits(m),
    (m) => affordable(m) && webs(m),
    (m) => affordable(m),
    (m) => sees(m) && webs(m) && fits(m),
    () => true,
  ];
  for (const rule of rules) {
    const candidates = text.filter(rule);
    if (candidates.length > 0) return candidates.sort((a, b) => compare(a, b, defaultModel))[0];
  }
  return undefined;
}

function compare(a: ModelInfo, b: ModelInfo, defaultModel: string): number {
  // The built-in offline model answers without a provider: free, but no match for a real model, so it comes last.
  if (a.offline !== b.offline) return a.offline ? 1 : -1;
  const price = autoPrice(a) - autoPrice(b);
  if (price !== 0) return price;
  if ((a.id === defaultModel) !== (b.id === defaultModel)) return a.id === defaultModel ? -1 : 1;
  const context = (b.contextLength ?? 0) - (a.contextLength ?? 0);
  if (context !== 0) return context;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
