/**
 * The image and video models of the catalogue: the built-in offline engines (always there, labelled as not models,
 * like Parley Offline) and the models of the configured image and video providers. The main catalogue
 * (src/server/chat/catalogue.ts) lists their ModelInfo after the text models; the media routes resolve here.
 */
import type { ModelInfo } from '../../protocol/api';
import { formatPrice, parseDecimal } from '../money/amounts';
import { isKlingModel, KLING_DEFAULT_PRICES } from '../../protocol/video-rules';
import { OFFLINE_GRID_MODEL_ID, OFFLINE_IMAGE_MODEL_ID, OfflineImageProvider } from './providers/image-offline';
import { OpenAiImageProvider } from './providers/image-openai';
import type { ImageProvider, VideoProvider } from './providers/types';
import { OFFLINE_VIDEO_MODEL_ID, OfflineVideoProvider } from './providers/video-offline';
import { OFFLINE_UPSCALER_MODEL_ID, OfflineUpscalerProvider } from './providers/upscale-offline';
import { QueueVideoProvider } from './providers/video-queue';
import type { MediaConfig } from './config';
import { defaultImageSettings, type ImageSettingName } from '../../protocol/media';
import { UPSCALE_CAPABILITY } from '../../protocol/image-rules';

export interface ImageModel {
  kind: 'image';
  info: ModelInfo;
  provider: ImageProvider;
  upstreamModel: string;
  /** Micro-dollars per image; null = free. */
  priceMicro: bigint | null;
  imageToImage: boolean;
  offline: boolean;
}

export interface VideoModel {
  kind: 'video';
  info: ModelInfo;
  provider: VideoProvider;
  upstreamModel: string;
  /** Micro-dollars per video; null = free. With `priceBySeconds`, the price of the shortest video. */
  priceMicro: bigint | null;
  /** Prices by the video's length (a Kling model's defaults): the first whose seconds cover the duration, else the last. */
  priceBySeconds?: readonly { seconds: number; usdMicro: bigint }[];
  imageToVideoOnly: boolean;
}

/** What one video of `model` costs for its duration (micro-dollars), or null when it is free. */
export function videoPriceMicro(model: VideoModel, durationSeconds: number | undefined): bigint | null {
  const steps = model.priceBySeconds;
  if (!steps || steps.length === 0) return model.priceMicro;
  const d = durationSeconds ?? steps[0]!.seconds;
  return (steps.find((s) => d <= s.seconds) ?? steps[steps.length - 1]!).usdMicro;
}

const NOT_A_MODEL = 'Built into Parley. Not an AI model:';

/** What the offline painter uses: a count, a size (or an aspect ratio) and the seed; the grid is always one grid. */
const OFFLINE_IMAGE_SETTINGS: ImageSettingName[] = ['nImages', 'width', 'height', 'aspect_ratio', 'seed'];
const OFFLINE_GRID_SETTINGS: ImageSettingName[] = ['aspect_ratio', 'seed'];
/** The capability of an upscaling model: it takes one image and the factor (spec 001 section 9), no size. */
export { UPSCALE_CAPABILITY } from '../../protocol/image-rules';
/** Spec 000 section 5 names the Upscaler by its id, as the empty-prompt rule does (imagePrompt). */
export function isUpscalerModel(upstreamModel: string): boolean {
  return upstreamModel.toLowerCase().includes('upscaler');
}

function info(id: string, name: string, modality: 'image' | 'video', provider: string, priceMicro: bigint | null, capabilities: string[], offline: boolean, description: string, imageSettings?: ImageSettingName[]): ModelInfo {
  const m: ModelInfo = { id, name, modality, provider, pricing: { input: '0', output: '0' }, capabilities, free: priceMicro === null, offline, description };
  if (imageSettings) m.imageSettings = imageSettings;
  if (priceMicro !== null) m.unitPrice = { usd: formatPrice(priceMicro), unit: modality };
  return m;
}

export class MediaCatalogue {
  private readonly images = new Map<string, ImageModel>();
  private readonly videos = new Map<string, VideoModel>();
  private readonly order: string[] = [];

  constructor(config: MediaConfig, now: () => number = Date.now) {
    for (const p of config.images) {
      const provider = new OpenAiImageProvider(p.name, p.url, p.key);
      for (const model of p.models) {
        const id = this.images.has(model) ? `${p.name}/${model}` : model;
        const price = p.pricing.get(model) ?? null;
        // An upscaling model (its id names one) takes an image and the factor (spec 001 section 9), nothing else.
        const upscaler = isUpscalerModel(model);
        const i2i = upscaler || p.imageToImage.has(model);
        const caps = upscaler ? ['image-to-image', UPSCALE_CAPABILITY] : ['text-to-image', ...(i2i ? ['image-to-image'] : [])];
        const family = defaultImageSettings(model);
        const settings = p.settings.get(model) ?? family.settings;
        const resolutions = p.resolutions.get(model) ?? family.resolutions ?? ['512x512', '768x768', '1024x1024'];
        const modelInfo = { ...info(id, model, 'image', p.name, price === 0n ? null : price, caps, false, `${model} via ${p.name}`), imageSettings: settings, ...(settings.includes('resolution') ? { resolutions } : {}) };
        this.addImage({ kind: 'image', info: modelInfo, provider, upstreamModel: model, priceMicro: price === 0n ? null : price, imageToImage: i2i, offline: false });
      }
    }
    const offlineImages = new OfflineImageProvider();
    this.addImage({
      kind: 'image',
      info: info(OFFLINE_IMAGE_MODEL_ID, 'Parley Offline Image (built-in, no AI)', 'image', 'offline', null, ['text-to-image', 'image-to-image'], true,
        `${NOT_A_MODEL} paints a deterministic abstract picture from your prompt and seed (colour words steer it). Works with no key and no network.`, OFFLINE_IMAGE_SETTINGS),
      provider: offlineImages, upstreamModel: OFFLINE_IMAGE_MODEL_ID, priceMicro: null, imageToImage: true, offline: true,
    });
    this.addImage({
      kind: 'image',
      info: info(OFFLINE_GRID_MODEL_ID, 'Parley Offline Grid (built-in, no AI)', 'image', 'offline', null, ['text-to-image', 'quadrants'], true,
        `${NOT_A_MODEL} four variations in one 2x2 grid, split into four images you can pick from (Midjourney-style).`, OFFLINE_GRID_SETTINGS),
      provider: offlineImages, upstreamModel: OFFLINE_GRID_MODEL_ID, priceMicro: null, imageToImage: false, offline: true,
    });
    this.addImage({
      kind: 'image',
      info: info(OFFLINE_UPSCALER_MODEL_ID, 'Parley Offline Upscaler (built-in, no AI)', 'image', 'offline', null, ['image-to-image', UPSCALE_CAPABILITY], true,
        `${NOT_A_MODEL} enlarges your image 2, 3 or 4 times with a Lanczos resampler (sharper than a plain stretch; it adds no detail). Add an image; the prompt may stay empty.`, ['upscale_factor']),
      provider: new OfflineUpscalerProvider(), upstreamModel: OFFLINE_UPSCALER_MODEL_ID, priceMicro: null, imageToImage: true, offline: true,
    });
    for (const p of config.videos) {
      const provider = new QueueVideoProvider(p.name, p.url, p.key);
      for (const model of p.models) {
        const id = this.videos.has(model) ? `${p.name}/${model}` : model;
        const only = p.imageToVideoOnly.has(model);
        const caps = only ? ['image-to-video', 'image-to-video-only'] : ['text-to-video', 'image-to-video'];
        // A Kling model without a price of the operator's: spec 001 section 9's $2.38 for 5 s, $4.76 for 10 s.
        if (!p.pricing.has(model) && isKlingModel(model)) {
          const steps = KLING_DEFAULT_PRICES.map((s) => ({ seconds: s.seconds, usdMicro: parseDecimal(s.usd, 6) }));
          const described = `${model} via ${p.name}: ${KLING_DEFAULT_PRICES.map((s) => `$${s.usd} for ${s.seconds} s`).join(', ')}`;
          this.addVideo({ kind: 'video', info: info(id, model, 'video', p.name, steps[0]!.usdMicro, caps, false, described), provider, upstreamModel: model, priceMicro: steps[0]!.usdMicro, priceBySeconds: steps, imageToVideoOnly: only });
          continue;
        }
        const price = p.pricing.get(model) ?? null;
        this.addVideo({ kind: 'video', info: info(id, model, 'video', p.name, price === 0n ? null : price, caps, false, `${model} via ${p.name}`), provider, upstreamModel: model, priceMicro: price === 0n ? null : price, imageToVideoOnly: only });
      }
    }
    this.addVideo({
      kind: 'video',
      info: info(OFFLINE_VIDEO_MODEL_ID, 'Parley Offline Video (built-in, no AI)', 'video', 'offline', null, ['text-to-video', 'image-to-video'], true,
        `${NOT_A_MODEL} a short deterministic animation painted from your prompt (H.264 MP4, up to 5 s). Works with no key and no network.`),
      provider: new OfflineVideoProvider(config.offlineVideoMs, now), upstreamModel: OFFLINE_VIDEO_MODEL_ID, priceMicro: null, imageToVideoOnly: false,
    });
  }

  private addImage(m: ImageModel): void {
    this.images.set(m.info.id, m);
    this.order.push(m.info.id);
  }

  private addVideo(m: VideoModel): void {
    this.videos.set(m.info.id, m);
    this.order.push(m.info.id);
  }

  image(id: string): ImageModel | undefined {
    return this.images.get(id);
  }

  video(id: string): VideoModel | undefined {
    return this.videos.get(id);
  }

  /** Image models that take input images, for a recommendation. */
  imageToImageModels(): ImageModel[] {
    return [...this.images.values()].filter((m) => m.imageToImage);
  }

  list(): ModelInfo[] {
    return this.order.map((id) => (this.images.get(id) ?? this.videos.get(id))?.info as ModelInfo);
  }
}
