/**
 * Holds for speech, web search and scraping under parallel requests (issue 5 point 3): a session with a small
 * balance fires many paid calls at once against slow providers (so every reserve happens while the others still
 * hold theirs). The total charged never exceeds the balance, the balance never goes negative, the ledger balances,
 * no hold is left open, and every refused call gets the spec's 402 with the required amounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../../src/protocol/api';
import { TTS_COST_HEADER } from '../../../src/protocol/speech';
import { SCRAPE_PRICE_MICRO_PER_PAGE, SEARCH_PRICE_MICRO } from '../../../src/protocol/web';
import { createApp } from '../../../src/server/app';
import { loadConfig } from '../../../src/server/config';
import { openDatabase } from '../../../src/server/db/open';
import type { Db } from '../../../src/server/db/types';
import { Ledger } from '../../../src/server/money/ledger';
import { Catalogue } from '../../../src/server/chat/catalogue';
import { loadSearchConfig } from '../../../src/server/web/search-config';
import { SpeechCatalogue } from '../../../src/server/speech/catalogue';
import { loadSpeechConfig } from '../../../src/server/speech/config';
import { TtsJobs } from '../../../src/server/speech/jobs';
import { startTestHost, webGateway } from '../web/helpers';
import { fakeSpeechProviders, fakeTranscriber, SLOW_MARK, startFakeSpeech, type FakeSpeech } from './fake-speech';
import { newSession } from './helpers';
import { expectLedgerBalanced } from './money-checks';

const PARALLEL = 24;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  body: ErrorBody | null;
  /** X-Parley-Cost of a TTS answer. */
  cost: string | null;
}

async function answer(sent: Response | Promise<Response>): Promise<Answer> {
  const res = await sent;
  const json = res.headers.get('content-type')?.includes('json') === true;
  if (!json) {
    await res.arrayBuffer();
    return { status: res.status, body: null, cost: res.headers.get(TTS_COST_HEADER) };
  }
  return { status: res.status, body: (await res.json()) as ErrorBody, cost: null };
}

/** The invariants of a parallel run: charged = accepted x price <= credit, never negative, refused = 402. */
async function expectNoOverspend(db: Db, ledger: Ledger, sessionId: string, credited: bigint, price: bigint, answers: Answer[], message: string): Promise<void> {
  const accepted = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status !== 200);
  expect(accepted).toBeGreaterThan(0);
  expect(refused.length).toBeGreaterThan(0);
  expect(BigInt(accepted) * price).toBeLessThanOrEqual(credited);
  for (const r of refused) {
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: 'INSUFFICIENT_BALANCE', message });
    expect(r.body?.requiredUsd).toMatch(/^\d+\.\d{6}$/);
    expect(r.body?.requiredBalance).toMatch(/^\d+\.\d{6}$/);
  }
  const charged = await db.query<{ total: string }>(`SELECT coalesce(sum(applied_usd_micro), 0)::text AS total FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [sessionId]);
  expect(BigInt(charged[0]?.total ?? '-1')).toBe(BigInt(accepted) * price);
  const balance = await ledger.balance(sessionId);
  expect(balance.usdMicro).toBe(credited - BigInt(accepted) * price);
  expect(balance.usdMicro >= 0n).toBe(true);
  expect((await ledger.holds(sessionId)).filter((h) => h.status === 'held')).toEqual([]);
  await expectLedgerBalanced(db, sessionId);
}

describe('speech (TTS)', () => {
  let db: Db;
  let fake: FakeSpeech;
  let ledger: Ledger;
  let speech: SpeechCatalogue;
  let jobs: TtsJobs;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    db = await openDatabase({ kind: 'memory' });
    fake = await startFakeSpeech();
    fake.slowMs = 400;
    const config = loadConfig({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', PARLEY_COSTLY_RATE_BURST: '10000' });
    const speechConfig = loadSpeechConfig({ PARLEY_TTS_PROVIDERS: fakeSpeechProviders(fake.url), PARLEY_TRANSCRIBE_PROVIDER: fakeTranscriber(fake.url, '0.006'), PARLEY_TTS_SYNC_MS: '10000' });
    speech = new SpeechCatalogue(speechConfig);
    ledger = new Ledger(db, { nanoPriceUsdMicro: config.nanoPriceUsdMicro });
    // A short hold life: the renewal test below sees a job's hold outlive it while the provider works. Not shorter:
    // on a busy machine a hold whose renewal is late by its whole life is swept by a parallel reserve's shortfall.
    jobs = new TtsJobs({ db, ledger, catalogue: speech, log: () => undefined, syncWaitMs: speechConfig.syncWaitMs, providerTimeoutMs: 20_000, workerMs: 60_000, holdTtlMs: 5_000 });
    const catalogue = await Catalogue.create([], { offlineTokenDelayMs: 0, log: () => undefined });
    app = createApp({ db, catalogue, ledger, settings: { cookieSecure: false, guards: config.guards }, log: () => undefined, speech: { catalogue: speech, jobs } });
  });
  afterAll(async () => {
    await jobs.stop();
    await speech.close();
    await fake.close();
    await db.close();
  });

  async function funded(usdMicro: bigint) {
    const s = await newSession(app);
    await ledger.credit(s.data.id, { key: `seed:${s.data.id}`, usdMicro });
    return s;
  }

  it('parallel paid TTS requests never spend more than the balance; the refused get 402', async () => {
    const text = `${SLOW_MARK} hello`; // 14 characters of tts-1 at $0.015 per 1000 = 210 micro-dollars
    const price = 210n;
    const credited = 2_000n;
    const s = await funded(credited);
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        answer(app.request('/api/tts', { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ text, model: 'tts-1', requestId: `tts-par-${i}-xx` }) })),
      ),
    );
    expect(answers.filter((a) => a.status === 200).map((a) => a.cost)).toEqual(Array<string>(9).fill('0.00021'));
    await expectNoOverspend(db, ledger, s.data.id, credited, price, answers, 'Insufficient balance: OpenAI TTS (14 characters) needs 0.000210 USD or 0.000210 XNO');
  });

  it('a TTS job keeps its hold while the provider works longer than the hold life (renewed like every paid call)', async () => {
    const s = await funded(1_000_000n);
    fake.slowMs = 7_500;
    try {
      const pending = jobs.submit(s.data.id, { model: 'tts-1', job: { model: 'tts-1', text: `${SLOW_MARK} hello`, voice: 'alloy', speed: 1 }, chars: 14, costUsdMicro: '210' }, 'renewed-hold-1');
      await sleep(6_600);
      // Past the 5 s life: a sweep gives back only holds nobody renews.
      await ledger.sweepExpiredHolds();
      expect((await ledger.holds(s.data.id)).map((h) => h.status)).toEqual(['held']);
      const out = await pending;
      expect(out.kind).toBe('done');
      if (out.kind === 'done') expect(out.made).toMatchObject({ ok: true, cost: 0.00021, paymentSource: 'USD' });
    } finally {
      fake.slowMs = 400;
    }
    expect((await ledger.balance(s.data.id)).usdMicro).toBe(1_000_000n - 210n);
    await expectLedgerBalanced(db, s.data.id);
  });
});

describe('web search and scraping', () => {
  let host: Awaited<ReturnType<typeof startTestHost>>;

  beforeAll(async () => {
    // A slow SearXNG and a slow page: every request reserves while the others still hold theirs.
    host = await startTestHost({
      '/search': (_q, r) => {
        setTimeout(() => r.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [{ title: 'Bread', url: 'https://bread.example/', content: 'Bake it.', engine: 'fake' }] })), 300);
      },
      '/page': (_q, r) => {
        setTimeout(() => r.writeHead(200, { 'content-type': 'text/plain' }).end('A page worth reading.'), 300);
      },
    });
  });
  afterAll(async () => {
    await host.close();
  });

  it('parallel paid web searches never spend more than the balance; the refused get 402', async () => {
    const gw = await webGateway({ search: loadSearchConfig({ PARLEY_SEARXNG_URL: host.url }) }, { PARLEY_COSTLY_RATE_BURST: '10000' });
    try {
      const price = BigInt(SEARCH_PRICE_MICRO.standard);
      const credited = price * 3n + 2_000n;
      await gw.credit(credited);
      const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => answer(gw.post('/api/web-search', { query: `bread ${i}`, requestId: `search-par-${i}` }))));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      await expectNoOverspend(gw.db, gw.ledger, gw.session.data.id, credited, price, answers, 'Insufficient balance: a standard web search needs 0.006000 USD or 0.006000 XNO available');
    } finally {
      await gw.close();
    }
  });

  it('parallel paid scrapes never spend more than the balance; the refused get 402', async () => {
    const gw = await webGateway({ scrapeTest: { allow: [{ address: '127.0.0.1', port: host.port }] } }, { PARLEY_COSTLY_RATE_BURST: '10000' });
    try {
      const price = BigInt(SCRAPE_PRICE_MICRO_PER_PAGE);
      const credited = price * 5n + 500n;
      await gw.credit(credited);
      const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => answer(gw.post('/api/scrape', { urls: [`${host.url}/page?${i}`], requestId: `scrape-par-${i}` }))));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
      await expectNoOverspend(gw.db, gw.ledger, gw.session.data.id, credited, price, answers, 'Insufficient balance: scraping 1 page needs 0.001000 USD or 0.001000 XNO available');
    } finally {
      await gw.close();
    }
  });
});
