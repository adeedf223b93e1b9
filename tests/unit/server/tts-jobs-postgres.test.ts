/**
 * Text-to-speech jobs on a real PostgreSQL through two connection pools (as two gateway processes have): abandoned
 * jobs claimed by two runners ticking at once (FOR UPDATE SKIP LOCKED) are each spoken once and charged once, and
 * one requestId sent to both gateways at once is one job. Uses a throwaway server (./pg-server.ts) or
 * PARLEY_TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { SpeechCatalogue } from '../../../src/server/speech/catalogue';
import { loadSpeechConfig } from '../../../src/server/speech/config';
import { TtsJobs, type TtsJobInput } from '../../../src/server/speech/jobs';
import { fakeSpeechProviders, startFakeSpeech, type FakeSpeech } from './fake-speech';
import { newSession } from './helpers';
import { startTempPostgres, type TempPostgres } from './pg-server';

describe('TTS jobs on PostgreSQL, two gateways', () => {
  let server: TempPostgres | null = null;
  let adminUrl: string;
  let dbName: string;
  let one: Db;
  let two: Db;
  let fake: FakeSpeech;
  let speech: SpeechCatalogue;
  const gateways: TtsJobs[] = [];

  beforeAll(async () => {
    fake = await startFakeSpeech();
    if (process.env.PARLEY_TEST_DATABASE_URL) adminUrl = process.env.PARLEY_TEST_DATABASE_URL;
    else {
      server = await startTempPostgres();
      adminUrl = server.url;
    }
    dbName = `parley_tts_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    one = await openDatabase({ kind: 'postgres', url: u.toString() });
    two = await openDatabase({ kind: 'postgres', url: u.toString() });
    speech = new SpeechCatalogue(loadSpeechConfig({ PARLEY_TTS_PROVIDERS: fakeSpeechProviders(fake.url) }));
    for (const db of [one, two]) {
      gateways.push(new TtsJobs({ db, ledger: new Ledger(db, { nanoPriceUsdMicro: 1_000_000n }), catalogue: speech, log: () => undefined, syncWaitMs: 5_000, providerTimeoutMs: 10_000, workerMs: 1_000_000 }));
    }
  });
  afterAll(async () => {
    for (const g of gateways) await g.stop();
    await speech?.close();
    await one?.close();
    await two?.close();
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin.end();
    await server?.stop();
    await fake?.close();
  });

  async function fundedSession(): Promise<{ id: string; ledger: Ledger }> {
    const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' });
    const ledger = new Ledger(one, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
    const app = createApp({ db: one, catalogue: await Catalogue.create([], { offlineTokenDelayMs: 0, log: () => undefined }), ledger, log: () => undefined });
    const s = await newSession(app);
    await ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro: 1_000_000n });
    return { id: s.data.id, ledger };
  }

  const spoken = (text: string) => fake.calls.filter((c) => (c.body as { input?: string } | null)?.input === text).length;

  it('12 abandoned jobs, two runners claiming at once: each spoken once and charged once', async () => {
    const { id, ledger } = await fundedSession();
    const texts: string[] = [];
    for (let i = 0; i < 12; i++) {
      const text = `Abandoned chunk number ${i}`;
      texts.push(text);
      const input: TtsJobInput = { model: 'tts-1', job: { model: 'tts-1', text, voice: 'alloy', speed: 1 }, chars: text.length, costUsdMicro: String(text.length * 15) };
      await ledger.reserve(id, { key: `tts:${id}:dead-${i}`, maxUsdMicro: BigInt(input.costUsdMicro), ttlMs: 600_000 });
      await one.query(
        `INSERT INTO tts_jobs (run_id, session_id, request_id, model, input, chars, cost_usd_micro, hold_key, status, owner, lease_until)
         VALUES ($1, $2, $3, 'tts-1', $4::text::jsonb, $5, $6::bigint, $7, 'running', 'a-dead-gateway', now() - interval '1 second')`,
        [`deadrun${i}`, id, `dead-${i}`, JSON.stringify(input), text.length, input.costUsdMicro, `tts:${id}:dead-${i}`],
      );
    }
    const [a, b] = gateways as [TtsJobs, TtsJobs];
    let claimed = 0;
    for (let round = 0; round < 10 && claimed < 12; round++) {
      const [x, y] = await Promise.all([a.tick(), b.tick()]);
      claimed += x + y;
    }
    expect(claimed).toBe(12);
    for (let i = 0; i < 100; i++) {
      const left = await one.query<{ n: string }>(`SELECT count(*)::text AS n FROM tts_jobs WHERE session_id = $1 AND status = 'running'`, [id]);
      if (left[0]?.n === '0') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const rows = await one.query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM tts_jobs WHERE session_id = $1 GROUP BY status`, [id]);
    expect(rows).toEqual([{ status: 'completed', n: '12' }]);
    for (const t of texts) expect(spoken(t)).toBe(1);
    const charges = await one.query<{ n: string; total: string }>(`SELECT count(*)::text AS n, sum(requested_usd_micro)::text AS total FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [id]);
    expect(charges[0]).toEqual({ n: '12', total: String(texts.reduce((sum, t) => sum + t.length * 15, 0)) });
    expect(await a.tick()).toBe(0);
  });

  it('one requestId sent to both gateways at once is one job, one provider call, one charge', async () => {
    const { id, ledger } = await fundedSession();
    const text = 'Sent twice to two gateways at the same moment.';
    const input: TtsJobInput = { model: 'tts-1', job: { model: 'tts-1', text, voice: 'alloy', speed: 1 }, chars: text.length, costUsdMicro: String(text.length * 15) };
    const [a, b] = gateways as [TtsJobs, TtsJobs];
    const outs = await Promise.all([a.submit(id, input, 'twice-request-1'), b.submit(id, input, 'twice-request-1')]);
    // The second names the first one's job: its runId while it runs, or its audio once made.
    for (const o of outs) {
      expect(['done', 'pending']).toContain(o.kind);
      if (o.kind === 'done') expect(o.made.ok).toBe(true);
    }
    expect(outs.some((o) => o.kind === 'done')).toBe(true);
    expect(spoken(text)).toBe(1);
    expect((await ledger.balance(id)).usdMicro).toBe(1_000_000n - BigInt(text.length * 15));
    const rows = await one.query<{ n: string }>(`SELECT count(*)::text AS n FROM tts_jobs WHERE session_id = $1`, [id]);
    expect(rows[0]?.n).toBe('1');
  });
});
