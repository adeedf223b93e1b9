/**
 * The built-in offline video engine: NOT a model. A job "runs" for a configured time, then paints a short clip
 * from the prompt (the offline image engine's scene, its shapes moving along their orbits) and encodes it as
 * H.264 in MP4 (src/server/media/h264.ts): a real file any browser plays. Deterministic: same prompt, seed, aspect
 * ratio and duration, same bytes. The job's state is its id (the time it was submitted), so nothing lives in memory.
 */
import { paint, sceneOf } from '../art';
import { encodeMp4 } from '../h264';
import type { VideoJobInput, VideoPoll, VideoProvider } from './types';

export const OFFLINE_VIDEO_MODEL_ID = 'parley-offline-video';
/** Frames per second and the longest clip of the offline engine (kept small: I_PCM is 1.5 bytes a pixel a frame). */
export const OFFLINE_VIDEO_FPS = 10;
export const OFFLINE_VIDEO_MAX_SECONDS = 5;

/** Clip size (multiples of 16) for an aspect ratio. */
export function offlineVideoSize(aspect: unknown): { width: number; height: number } {
  if (aspect === '9:16') return { width: 144, height: 256 };
  if (aspect === '1:1') return { width: 192, height: 192 };
  return { width: 256, height: 144 };
}

export class OfflineVideoProvider implements VideoProvider {
  readonly id = 'offline';

  constructor(
    /** How long a job takes before it completes (PARLEY_OFFLINE_VIDEO_MS). */
    private readonly runMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async submit(_job: VideoJobInput, runId: string): Promise<string> {
    return `${runId}@${this.now()}`;
  }

  async poll(providerJobId: string, job: VideoJobInput): Promise<VideoPoll> {
    const at = Number(providerJobId.split('@')[1]);
    if (!Number.isFinite(at)) return { state: 'failed', status: 'ERROR', message: 'Unknown offline job' };
    const elapsed = this.now() - at;
    if (elapsed < this.runMs) return { state: 'running', status: elapsed < this.runMs / 4 ? 'IN_QUEUE' : 'IN_PROGRESS' };
    return { state: 'completed', video: { bytes: renderOfflineClip(job), mime: 'video/mp4' } };
  }
}

export function renderOfflineClip(job: Pick<VideoJobInput, 'prompt' | 'settings'>): Uint8Array {
  const { width, height } = offlineVideoSize(job.settings.aspect_ratio);
  const requested = typeof job.settings.duration === 'number' ? job.settings.duration : 3;
  const seconds = Math.max(1, Math.min(OFFLINE_VIDEO_MAX_SECONDS, requested));
  const seed = typeof job.settings.seed === 'number' ? job.settings.seed : 0;
  const scene = sceneOf(job.prompt, seed);
  const buffer = new Uint8Array(width * height * 3);
  return encodeMp4(width, height, OFFLINE_VIDEO_FPS, seconds * OFFLINE_VIDEO_FPS, (i) => paint(scene, width, height, (i / OFFLINE_VIDEO_FPS) * 2, buffer));
}
