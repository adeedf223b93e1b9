/**
 * The provider interfaces of the media modalities (one per modality, DESIGN "providers/ one interface per
 * modality"): an image provider answers one call with images; a video provider is a job queue (submit, then ask
 * for its status), the shape of fal's and Replicate's queue APIs. The gateway selects a provider from the
 * catalogue by model id (src/server/media/catalogue.ts).
 */
import type { ImageMime } from '../png';
import type { UpscaleFactor } from '../../../protocol/image-rules';

export interface ImageJob {
  /** The provider's own model id. */
  model: string;
  prompt: string;
  negativePrompt?: string;
  n: number;
  width: number;
  height: number;
  seed?: number;
  guidanceScale?: number;
  /** Input images for image-to-image, decoded. */
  inputs: { bytes: Uint8Array; mime: string }[];
  /** The Upscaler's factor (spec 001 section 9: 2, 3 or 4). */
  upscaleFactor?: UpscaleFactor;
  /** Runs the offline Upscaler off the event loop, within its budget (the route binds it to the session's turn). */
  upscale?: (data: Uint8Array, factor: UpscaleFactor, signal: AbortSignal) => Promise<Uint8Array>;
}

export interface ProviderImage {
  bytes: Uint8Array;
  mime: ImageMime;
}

export type ImageResult =
  | { ok: true; images: ProviderImage[]; /** One 2x2 grid the client splits (Midjourney-style). */ quadrants?: boolean }
  /** The provider refused or failed; `code` 'content_policy_violation' is a refused prompt (spec 000 section 8). */
  | { ok: false; status: number; code: string; message: string };

export interface ImageProvider {
  readonly id: string;
  generate(job: ImageJob, signal: AbortSignal): Promise<ImageResult>;
}

export interface VideoJobInput {
  model: string;
  prompt: string;
  /** The request's settings after the per-model defaults (src/protocol/video-rules.ts). */
  settings: Record<string, unknown>;
  imageDataUrl?: string;
}

/** A provider's view of a job: still running, done with a video to fetch, or failed. */
export type VideoPoll =
  | { state: 'running'; status: 'IN_QUEUE' | 'IN_PROGRESS' }
  | { state: 'completed'; video: { bytes: Uint8Array; mime: string } }
  | { state: 'failed'; status: 'FAILED' | 'ERROR' | 'CANCELLED'; message: string };

export interface VideoProvider {
  readonly id: string;
  /** Submits a job; returns the provider's job id, or throws with a message the user may see. */
  submit(job: VideoJobInput, runId: string, signal: AbortSignal): Promise<string>;
  /** Asks how a job is doing; a completed job's video is fetched here (bounded in size and time). */
  poll(providerJobId: string, job: VideoJobInput, signal: AbortSignal): Promise<VideoPoll>;
}

/** A provider call failed in a way worth retrying later (network, 5xx, a status endpoint that flaps). */
export class TransientProviderError extends Error {
  override name = 'TransientProviderError';
}
