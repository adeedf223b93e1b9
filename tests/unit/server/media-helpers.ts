/** A gateway app with media services (image and video models from env, a runner the test drives by hand). */
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { type Env } from '../../../src/server/env-vars';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { MediaCatalogue } from '../../../src/server/media/catalogue';
import { VideoJobRunner } from '../../../src/server/media/video-jobs';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { newSession } from './helpers';

export async function mediaGateway(env: Env, clock: { now: number } = { now: Date.now() }, db?: Db) {
  const database = db ?? (await openDatabase({ kind: 'memory' }));
  const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', PARLEY_VIDEO_POLL_MS: '10', ...env });
  const logs: string[] = [];
  const log = (l: string) => void logs.push(l);
  const media = new MediaCatalogue(config.media, () => clock.now);
  const catalogue = await Catalogue.create([], { offlineTokenDelayMs: 0, log, media });
  const ledger = new Ledger(database, { nanoPriceUsdMicro: 1_000_000n });
  const runner = new VideoJobRunner({ db: database, ledger, media, log, intervalMs: 1_000_000, pollMs: 0 });
  const app = createApp({ db: database, catalogue, ledger, log, media: { catalogue: media, runner, now: () => clock.now } });
  const session = await newSession(app);
  const post = (path: string, body: unknown, cookie = session.cookie) =>
    app.request(path, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const get = (path: string, cookie = session.cookie) => app.request(path, { headers: { cookie } });
  const credit = (usd: bigint) => ledger.credit(session.data.id, { key: `test-credit-${crypto.randomUUID()}`, usdMicro: usd });
  const balance = async () => (await ledger.balance(session.data.id)).usdMicro;
  return { app, db: database, ledger, runner, session, post, get, credit, balance, logs, media, close: () => database.close() };
}
