/** The media routes and their services: the image and video models, and the video job runner. */
import type { Hono } from 'hono';
import type { RouteContext } from '../context';
import type { AppEnv } from '../http';
import type { Db } from '../db/types';
import type { Ledger } from '../money/ledger';
import { registerGenerateImageRoutes } from './generate-image-route';
import { registerGenerateVideoRoutes } from './generate-video-route';
import { MediaCatalogue } from './catalogue';
import { loadMediaConfig, type FreeQuotaLimits, type MediaConfig } from './config';
import { VideoJobRunner } from './video-jobs';

export interface MediaServices {
  catalogue: MediaCatalogue;
  runner: VideoJobRunner;
  /** The clock of the free flux-schnell counter (tests move it across a date). */
  now?: () => number;
  /** Free flux-schnell uses per client address and per day (PARLEY_FREE_FLUX_*); default: those variables' defaults. */
  freeFlux?: FreeQuotaLimits;
}

/** Builds the media services and starts the job runner (it first picks up jobs a stopped gateway left). */
export function startMediaServices(o: { db: Db; ledger: Ledger; catalogue: MediaCatalogue; config: MediaConfig; log: (line: string) => void }): MediaServices {
  const runner = new VideoJobRunner({ db: o.db, ledger: o.ledger, media: o.catalogue, log: o.log, intervalMs: o.config.videoWorkerMs, pollMs: o.config.videoPollMs });
  runner.start();
  return { catalogue: o.catalogue, runner, freeFlux: o.config.freeFlux };
}

export function registerMediaRoutes(app: Hono<AppEnv>, ctx: RouteContext, given: MediaServices | undefined): void {
  let media = given;
  if (!media) {
    // createApp without media services (route tests): the offline engines, with a runner that runs only once woken.
    const config = loadMediaConfig({});
    const catalogue = new MediaCatalogue(config);
    media = { catalogue, runner: new VideoJobRunner({ db: ctx.db, ledger: ctx.ledger, media: catalogue, log: ctx.log, intervalMs: config.videoWorkerMs, pollMs: config.videoPollMs }) };
  }
  registerGenerateImageRoutes(app, ctx, media.catalogue, media.freeFlux ?? loadMediaConfig({}).freeFlux, media.now);
  registerGenerateVideoRoutes(app, ctx, media.catalogue, media.runner);
}
