/**
 * The model catalogue: the built-in offline model plus every model of every configured OpenAI-compatible
 * upstream. A model id is the upstream's own id; when two providers offer the same id, the later one is listed as
 * `{provider}/{id}`. Providers whose model list comes from GET {base}/models are discovered at startup; a failed
 * discovery is logged and retried in the background at most once a minute when the catalogue is read.
 */
import type { ModelInfo, ModelsResponse } from '../../protocol/api';
import type { UpstreamConfig } from '../config';
import { formatPrice, type PriceUnits } from '../money/amounts';
import { OFFLINE_MODEL, OFFLINE_MODEL_ID, OfflineProvider } from '../providers/offline';
import { OFFLINE_IMAGE_CHAT_MODEL, OFFLINE_IMAGE_CHAT_MODEL_ID, OfflineImageChatProvider } from '../media/providers/image-chat-offline';
import { ImageLinesProvider, OpenAiProvider } from '../providers/openai';
import type { TextProvider } from '../providers/types';
import { modelParams, upstreamParams } from '../providers/sampling';
import type { SamplingName } from '../../protocol/sampling';
import { isVisionModel } from '../../protocol/vision';
import { IMAGE_LINES_CAPABILITY, isImageChatModel } from '../../protocol/image-rules';

export interface CatalogueEntry {
  info: ModelInfo;
  provider: TextProvider;
  /** The id sent to the provider. */
  upstreamModel: string;
  /** null = free. */
  price: PriceUnits | null;
  /** The model settings its upstream takes (providers/sampling.ts); absent = none. */
  params?: readonly SamplingName[];
}

const FREE: PriceUnits = { inputMicroPerM: 0n, outputMicroPerM: 0n };

/**
 * Context length (tokens) listed for an upstream model whose configuration and GET /models give none: a
 * conservative size most current chat models exceed, so trimming to it never overflows (docs/protocol.md, "Models").
 */
export const DEFAULT_CONTEXT_LENGTH = 32_768;
/** The offline model's own context length: it reads the whole request, so it takes what any big model takes. */
export const OFFLINE_CONTEXT_LENGTH = 128_000;

/** Web-search suffixes the client may append to a model id (spec 000 section 7); the gateway ignores them. */
export function stripModelSuffix(id: string): string {
  return id.replace(/:online(\/linkup-deep)?$/, '');
}

interface UpstreamState {
  config: UpstreamConfig;
  provider: OpenAiProvider;
  /** The same provider for its image chat models. */
  imageLines: ImageLinesProvider;
  models: string[];
  /** Context lengths by model id: configured, or reported by GET /models (context_length). */
  contextLengths: Map<string, number>;
  /** Discovery failed and should be retried (models came from GET /models). */
  needsDiscovery: boolean;
  lastAttempt: number;
}

export interface CatalogueOptions {
  offlineTokenDelayMs: number;
  discoveryTimeoutMs?: number;
  log?: (line: string) => void;
  /** Extra providers (tests): entries are added as given. */
  extra?: CatalogueEntry[];
  /** Image and video models (src/server/media/catalogue.ts), listed after the text models. */
  media?: { list(): ModelInfo[] };
  /** Speech models (src/server/speech/catalogue.ts), listed after the others; see attachSpeech. */
  speech?: { list(): ModelInfo[] };
}

/** Spec 000 section 9: the default text model, then what stands closest to it at other providers, in order. */
export const DEFAULT_TEXT_MODEL = 'chatgpt-4o-latest';
export const DEFAULT_TEXT_MODEL_MATCHES: readonly string[] = [DEFAULT_TEXT_MODEL, 'gpt-4o-latest', 'gpt-4o', 'gpt-4o-2024-11-20', 'gpt-4o-2024-08-06'];

/** The first id of `ids` that is one of the matches (by the model's own id: 'openai/chatgpt-4o-latest' counts). */
export function preferredDefault(ids: readonly string[]): string | undefined {
  const own = (id: string) => id.slice(id.lastIndexOf('/') + 1).toLowerCase();
  for (const match of DEFAULT_TEXT_MODEL_MATCHES) {
    const hit = ids.find((id) => own(id) === match);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

export class Catalogue {
  private entries = new Map<string, CatalogueEntry>();
  private order: string[] = [];
  private readonly offline: OfflineProvider;
  private readonly offlineImageChat: OfflineImageChatProvider;
  private retrying = false;

  private constructor(
    private readonly upstreams: UpstreamState[],
    private readonly options: CatalogueOptions,
  ) {
    this.offline = new OfflineProvider({ tokenDelayMs: options.offlineTokenDelayMs });
    this.offlineImageChat = new OfflineImageChatProvider({ tokenDelayMs: options.offlineTokenDelayMs });
    this.rebuild();
  }

  /** Builds the catalogue, discovering models of upstreams that list none (failures are tolerated). */
  static async create(upstreams: readonly UpstreamConfig[], options: CatalogueOptions): Promise<Catalogue> {
    const states: UpstreamState[] = upstreams.map((config) => {
      const provider = new OpenAiProvider({ id: config.name, baseUrl: config.url, apiKey: config.key });
      return {
        config,
        provider,
        imageLines: new ImageLinesProvider(provider),
        models: config.models ?? [],
        contextLengths: new Map(),
        needsDiscovery: config.models === null,
        lastAttempt: 0,
      };
    });
    const cat = new Catalogue(states, options);
    await cat.discover();
    return cat;
  }

  private async discover(): Promise<void> {
    const pending = this.upstreams.filter((u) => u.needsDiscovery);
    if (pending.length === 0) return;
    await Promise.all(
      pending.map(async (u) => {
        u.lastAttempt = Date.now();
        try {
          u.models = await u.provider.listModels(this.options.discoveryTimeoutMs ?? 5_000);
          u.needsDiscovery = false;
          this.options.log?.(`provider ${u.config.name}: ${u.models.length} models from ${u.config.url}/models`);
        } catch (e) {
          this.options.log?.(`provider ${u.config.name}: model discovery failed (${e instanceof Error ? e.message : String(e)}); will retry`);
        }
      }),
    );
    this.rebuild();
  }

  private maybeRetry(): void {
    if (this.retrying) return;
    const now = Date.now();
    if (!this.upstreams.some((u) => u.needsDiscovery && now - u.lastAttempt > 60_000)) return;
    this.retrying = true;
    void this.discover().finally(() => {
      this.retrying = false;
    });
  }

  private rebuild(): void {
    const entries = new Map<string, CatalogueEntry>();
    const order: string[] = [];
    const add = (e: CatalogueEntry): void => {
      if (entries.has(e.info.id)) return;
      entries.set(e.info.id, e);
      order.push(e.info.id);
    };
    for (const u of this.upstreams) {
      for (const model of u.models) {
        const price = u.config.pricing.get(model) ?? null;
        const free = price === null || (price.inputMicroPerM === 0n && price.outputMicroPerM === 0n);
        const id = entries.has(model) || model === OFFLINE_MODEL_ID ? `${u.config.name}/${model}` : model;
        const p = price ?? FREE;
        // A chat model that answers with pictures: asked for them, its stream turned into image lines.
        const imageChat = isImageChatModel(model);
        const params = modelParams(upstreamParams(u.config.url, u.config.params), model);
        add({
          info: {
            id,
            name: model,
            modality: 'text',
            provider: u.config.name,
            pricing: { input: formatPrice(p.inputMicroPerM), output: formatPrice(p.outputMicroPerM) },
            capabilities: [...(isVisionModel(model) ? ['chat', 'streaming', 'vision'] : ['chat', 'streaming']), ...(imageChat ? [IMAGE_LINES_CAPABILITY] : [])],
            free,
            offline: false,
            contextLength: u.contextLengths.get(model) ?? DEFAULT_CONTEXT_LENGTH,
            description: `${model} via ${u.config.name}`,
            parameters: params,
          },
          provider: imageChat ? u.imageLines : u.provider,
          upstreamModel: model,
          price: free ? null : price,
          params,
        });
      }
    }
    for (const e of this.options.extra ?? []) add(e);
    add({ info: { ...OFFLINE_MODEL, contextLength: OFFLINE_CONTEXT_LENGTH, parameters: [] }, provider: this.offline, upstreamModel: OFFLINE_MODEL_ID, price: null });
    // Spec 000 section 7: a chat model answering in the Gemini image model's JSON lines, built in.
    add({ info: { ...OFFLINE_IMAGE_CHAT_MODEL, parameters: [] }, provider: this.offlineImageChat, upstreamModel: OFFLINE_IMAGE_CHAT_MODEL_ID, price: null });
    this.entries = entries;
    this.order = order;
  }

  /**
   * Default model (spec 000 section 9: chatgpt-4o-latest): that model when an upstream offers it, else the
   * upstream's closest match (DEFAULT_TEXT_MODEL_MATCHES, in order), else the first configured upstream model, else
   * the offline model.
   */
  get defaultModel(): string {
    return preferredDefault(this.order) ?? this.order[0] ?? OFFLINE_MODEL_ID;
  }

  list(): ModelInfo[] {
    this.maybeRetry();
    const text = this.order.map((id) => (this.entries.get(id) as CatalogueEntry).info);
    const media = this.options.media ? this.options.media.list() : [];
    const speech = this.options.speech ? this.options.speech.list() : [];
    return [...text, ...media, ...speech];
  }

  /** Lists the speech models too (registerSpeechRoutes calls it when the catalogue was made without them). */
  attachSpeech(speech: { list(): ModelInfo[] }): void {
    this.options.speech ??= speech;
  }

  response(): ModelsResponse {
    const models = this.list();
    return { models, defaultModel: this.defaultModel };
  }

  /** Releases pooled upstream connections. */
  close(): void {
    for (const u of this.upstreams) u.provider.close();
  }

  resolve(id: string): CatalogueEntry | undefined {
    return this.entries.get(id) ?? this.entries.get(stripModelSuffix(id));
  }
}
