/** The speech routes and their services: the speech models, the offline voice, transcription and the TTS job runner. */
import type { Hono } from 'hono';
import type { RouteContext } from '../context';
import type { AppEnv } from '../http';
import type { Db } from '../db/types';
import type { Ledger } from '../money/ledger';
import { SpeechCatalogue } from './catalogue';
import { loadSpeechConfig, type SpeechConfig } from './config';
import { TtsJobs } from './jobs';
import { registerTranscribeRoutes } from './transcribe-route';
import { registerTtsRoutes } from './tts-route';

export interface SpeechServices {
  catalogue: SpeechCatalogue;
  jobs: TtsJobs;
}

/** Builds the speech services and starts the job runner (it first picks up jobs a stopped gateway left). */
export function startSpeechServices(o: { db: Db; ledger: Ledger; config: SpeechConfig; log: (line: string) => void; catalogue?: SpeechCatalogue }): SpeechServices {
  const catalogue = o.catalogue ?? new SpeechCatalogue(o.config);
  const jobs = new TtsJobs({ db: o.db, ledger: o.ledger, catalogue, log: o.log, syncWaitMs: o.config.syncWaitMs, providerTimeoutMs: o.config.providerTimeoutMs, workerMs: o.config.workerMs });
  jobs.start();
  // The offline voice's thread and its 24 MB of data load now, not on the first request.
  void catalogue.offline.warm().catch((e: unknown) => o.log(`offline voice: ${e instanceof Error ? e.message : String(e)}`));
  return { catalogue, jobs };
}

/** Stops the runner (waiting for the jobs this process runs) and the offline voice's thread. */
export async function stopSpeechServices(s: SpeechServices): Promise<void> {
  await s.jobs.stop();
  await s.catalogue.close();
}

export function registerSpeechRoutes(app: Hono<AppEnv>, ctx: RouteContext, given: SpeechServices | undefined): SpeechServices {
  let speech = given;
  if (!speech) {
    // createApp without speech services (route tests): the offline voice only, with a runner that is not started.
    const config = loadSpeechConfig({});
    const catalogue = new SpeechCatalogue(config);
    speech = { catalogue, jobs: new TtsJobs({ db: ctx.db, ledger: ctx.ledger, catalogue, log: ctx.log, syncWaitMs: config.syncWaitMs, providerTimeoutMs: config.providerTimeoutMs, workerMs: config.workerMs }) };
  }
  for (const path of ['/api/tts', '/api/transcribe']) {
    app.post(path, async (c, next) => {
      const limited = await ctx.costlyLimit.check(c);
      if (limited) return limited;
      await next();
    });
  }
  registerTtsRoutes(app, ctx, speech.catalogue, speech.jobs);
  registerTranscribeRoutes(app, ctx, speech.catalogue);
  return speech;
}
