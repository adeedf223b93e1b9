/**
 * Media provider configuration (docs/media.md): image providers speaking the OpenAI images API and
 * video providers with a fal-style job queue, each with its models and a price per image or per video.
 *
 *   PARLEY_IMAGE_PROVIDERS='[{"name":"localai","url":"http://localhost:8080/v1","models":["flux-schnell"],
 *     "pricing":{"flux-schnell":"0.003"},"imageToImage":["flux-schnell"]}]'
 *   PARLEY_VIDEO_PROVIDERS='[{"name":"fal","url":"https://queue.fal.run","key":"...","models":["fal-ai/kling-video/v2/master"],
 *     "pricing":{"fal-ai/kling-video/v2/master":"1.40"},"imageToVideoOnly":[]}]'
 */
import { FREE_FLUX_PER_DAY } from '../../protocol/image-rules';
import { IMAGE_SETTING_NAMES, type ImageSettingName } from '../../protocol/media';
import { z } from 'zod';
import { AmountError, parseDecimal } from '../money/amounts';
import { ConfigError, type Env } from '../env-vars';

const MediaProviderSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/),
  url: z.string().url(),
  key: z.string().optional().nullable(),
  models: z.array(z.string().min(1).max(200)).min(1).max(200),
  /** USD per image (images) or per video (video), decimal strings; models not listed are free. */
  pricing: z.record(z.string(), z.union([z.string(), z.number().nonnegative()])).optional(),
  /** Image models that take input images (image-to-image). */
  imageToImage: z.array(z.string()).optional(),
  /** Image models' settings (shown as their controls), when not their family's (protocol/media.ts defaultImageSettings). */
  settings: z.record(z.string(), z.array(z.enum(IMAGE_SETTING_NAMES)).max(IMAGE_SETTING_NAMES.length)).optional(),
  /** Image models' sizes for the 'resolution' setting ('WxH'). */
  resolutions: z.record(z.string(), z.array(z.string().regex(/^\d{2,4}x\d{2,4}$/)).max(12)).optional(),
  /** Video models that only make video from an image. */
  imageToVideoOnly: z.array(z.string()).optional(),
});

export interface MediaProviderConfig {
  name: string;
  url: string;
  key: string | null;
  models: string[];
  /** Micro-dollars per image or per video. */
  pricing: Map<string, bigint>;
  imageToImage: Set<string>;
  imageToVideoOnly: Set<string>;
  settings: Map<string, ImageSettingName[]>;
  resolutions: Map<string, string[]>;
}

export interface MediaConfig {
  images: MediaProviderConfig[];
  videos: MediaProviderConfig[];
  /** How long an offline video job takes (PARLEY_OFFLINE_VIDEO_MS). */
  offlineVideoMs: number;
  /** How often the job runner looks for jobs that are due (PARLEY_VIDEO_WORKER_MS). */
  videoWorkerMs: number;
  /** How often a running job's provider status is asked (PARLEY_VIDEO_POLL_MS). */
  videoPollMs: number;
  /** The free flux-schnell uses of a day beyond one session (media/billing.ts). */
  freeFlux: FreeQuotaLimits;
}

/** Free daily uses counted per client address and for all sessions together, besides the spec's per session. */
export interface FreeQuotaLimits {
  /** Per client address (IPv6 by /64) a day, all its sessions together (PARLEY_FREE_FLUX_PER_ADDRESS). */
  perAddress: number;
  /** For the whole gateway a day, every session and address together (PARLEY_FREE_FLUX_PER_DAY). */
  perDay: number;
}

function providers(env: Env, name: string): MediaProviderConfig[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new ConfigError(`${name} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = z.array(MediaProviderSchema).max(20).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${name} must be a JSON array of {name, url, key, models, pricing}: ${issue ? `${issue.path.join('.')} ${issue.message}` : ''}`);
  }
  return parsed.data.map((p) => {
    const pricing = new Map<string, bigint>();
    for (const [model, price] of Object.entries(p.pricing ?? {})) {
      try {
        pricing.set(model, parseDecimal(String(price), 6, `${name} price of ${model}`));
      } catch (e) {
        throw new ConfigError(e instanceof AmountError ? e.message : String(e));
      }
    }
    return {
      name: p.name,
      url: p.url.replace(/\/+$/, ''),
      key: p.key?.trim() || null,
      models: [...new Set(p.models)],
      pricing,
      imageToImage: new Set(p.imageToImage ?? []),
      imageToVideoOnly: new Set(p.imageToVideoOnly ?? []),
      settings: new Map(Object.entries(p.settings ?? {})),
      resolutions: new Map(Object.entries(p.resolutions ?? {})),
    };
  });
}

function ms(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  return n;
}

export function loadMediaConfig(env: Env): MediaConfig {
  return {
    images: providers(env, 'PARLEY_IMAGE_PROVIDERS'),
    videos: providers(env, 'PARLEY_VIDEO_PROVIDERS'),
    offlineVideoMs: ms(env, 'PARLEY_OFFLINE_VIDEO_MS', 6_000, 0, 3_600_000),
    videoWorkerMs: ms(env, 'PARLEY_VIDEO_WORKER_MS', 1_000, 10, 60_000),
    videoPollMs: ms(env, 'PARLEY_VIDEO_POLL_MS', 5_000, 10, 600_000),
    freeFlux: {
      // Default: one user's 10 (spec 000: 10 a day), shared by every session of an address; 0 = no free uses.
      perAddress: ms(env, 'PARLEY_FREE_FLUX_PER_ADDRESS', FREE_FLUX_PER_DAY, 0, 1_000_000),
      perDay: ms(env, 'PARLEY_FREE_FLUX_PER_DAY', 1_000, 0, 100_000_000),
    },
  };
}
