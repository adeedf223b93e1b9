import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateVideoResponse, VideoStatusResponse } from '../../../src/protocol/media';
import { VIDEO_MESSAGES } from '../../../src/protocol/video-rules';
import { VideoJobRunner } from '../../../src/server/media/video-jobs';
import { sniffVideo } from '../../../src/server/media/providers/video-queue';
import { startFakeMedia, type FakeMedia } from './fake-media';
import { newSession } from './helpers';
import { mediaGateway } from './media-helpers';

let fake: FakeMedia;
beforeAll(async () => {
  fake = await startFakeMedia();
});
afterAll(() => fake.close());

const env = () => ({
  PARLEY_OFFLINE_VIDEO_MS: '5000',
  PARLEY_VIDEO_PROVIDERS: JSON.stringify([
    {
      name: 'fakequeue',
      url: `${fake.url}/queue`,
      key: 'fal-key',
      models: ['fake/kling-video/v2/master', 'fake/hunyuan-i2v', 'fake/minimax-video'],
      pricing: { 'fake/kling-video/v2/master': '0.5', 'fake/hunyuan-i2v': '0.2' },
      imageToVideoOnly: ['fake/hunyuan-i2v'],
    },
  ]),
});

type G = Awaited<ReturnType<typeof mediaGateway>>;
const status = async (g: G, runId: string) => ((await (await g.get(`/api/generate-video/status?runId=${runId}&modelSlug=x`)).json()) as VideoStatusResponse).data;
async function start(g: G, body: Record<string, unknown>): Promise<GenerateVideoResponse> {
  const res = await g.post('/api/generate-video', { conversationUUID: 'c', ...body });
  expect(res.status).toBe(200);
  return (await res.json()) as GenerateVideoResponse;
}

describe('POST /api/generate-video, offline engine', () => {
  it('runs a job to a real, playable MP4 served from the gateway, with Range', async () => {
    const clock = { now: 1_000_000 };
    const g = await mediaGateway(env(), clock);
    const job = await start(g, { prompt: 'waves at sunset', model: 'parley-offline-video', duration: 2 });
    expect(job).toMatchObject({ status: 'IN_QUEUE', model: 'parley-offline-video', video_url: null, cost: 0 });
    expect(await g.runner.tick()).toBe(1);
    expect((await status(g, job.runId)).status).toBe('IN_PROGRESS');
    await g.runner.tick();
    expect((await status(g, job.runId)).status).toBe('IN_PROGRESS');
    clock.now += 5000;
    await g.runner.tick();
    const done = await status(g, job.runId);
    expect(done.status).toBe('COMPLETED');
    expect(done.video_url).toBe(`/api/generate-video/file/${job.runId}`);
    const file = await g.get(done.video_url ?? '');
    expect(file.headers.get('content-type')).toBe('video/mp4');
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(sniffVideo(bytes)).toBe('video/mp4');
    const part = await g.app.request(done.video_url ?? '', { headers: { cookie: g.session.cookie, range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${bytes.length}`);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    // Another session sees neither the job nor its file.
    const other = await newSession(g.app);
    expect((await g.get(`/api/generate-video/status?runId=${job.runId}`, other.cookie)).status).toBe(404);
    expect((await g.get(done.video_url ?? '', other.cookie)).status).toBe(404);
    await g.close();
  });

  it('refuses bad input with the spec messages', async () => {
    const g = await mediaGateway(env());
    const cases: [Record<string, unknown>, string][] = [
      [{ prompt: 'x', model: 'nope' }, 'Unknown video model: nope'],
      [{ prompt: '  ', model: 'parley-offline-video' }, 'Message is required'],
      [{ prompt: 'x'.repeat(2501), model: 'fake/kling-video/v2/master' }, 'Kling prompts can be at most 2500 characters'],
      [{ prompt: 'a cat', model: 'fake/hunyuan-i2v' }, VIDEO_MESSAGES.hunyuanNoAttachment],
      [{ prompt: 'a nude dancer', model: 'parley-offline-video' }, 'Content flagged as inappropriate'],
    ];
    for (const [body, text] of cases) {
      const res = await g.post('/api/generate-video', { conversationUUID: 'c', ...body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(text);
    }
    expect((await g.get('/api/generate-video/status?runId=../../etc')).status).toBe(400);
    await g.close();
  });
});

describe('video jobs on a queue provider', () => {
  it('completes, charges once, and the same requestId is the same job', async () => {
    fake.statuses = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'];
    fake.videoMissing = false;
    const g = await mediaGateway(env());
    await g.credit(2_000_000n);
    const a = await start(g, { prompt: 'a dragon', model: 'fake/kling-video/v2/master', requestId: 'request-0001' });
    const b = await start(g, { prompt: 'a dragon', model: 'fake/kling-video/v2/master', requestId: 'request-0001' });
    expect(b.runId).toBe(a.runId);
    expect(await g.balance()).toBe(1_500_000n);
    // Two runners on one database: each due job is claimed by one of them.
    const second = new VideoJobRunner({ db: g.db, ledger: g.ledger, media: g.media, log: () => undefined, intervalMs: 1_000_000, pollMs: 0 });
    for (let i = 0; i < 6; i++) await Promise.all([g.runner.tick(), second.tick()]);
    const done = await status(g, a.runId);
    expect(done).toMatchObject({ status: 'COMPLETED', cost: 0.5, paymentSource: 'USD' });
    const submitted = JSON.parse(fake.requests.filter((r) => r.path === '/queue/fake/kling-video/v2/master').at(-1)?.body ?? '{}') as Record<string, unknown>;
    expect(submitted).toMatchObject({ prompt: 'a dragon', duration: 5, aspect_ratio: '16:9' });
    expect(fake.submitted).toBeGreaterThanOrEqual(1);
    const charges = await g.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [g.session.data.id]);
    expect(charges[0]?.n).toBe('1');
    expect(await g.balance()).toBe(1_500_000n);
    await g.close();
  });

  it('a Kling model the operator gives no price costs $2.38 for 5 s and $4.76 for 10 s (spec 001 section 9), charged on completion', async () => {
    fake.statuses = ['COMPLETED'];
    fake.videoMissing = false;
    const g = await mediaGateway({ PARLEY_VIDEO_PROVIDERS: JSON.stringify([{ name: 'fakequeue', url: `${fake.url}/queue`, models: ['fake/kling-v1.6'] }]) });
    try {
      const models = (await (await g.get('/api/models')).json()) as { models: { id: string; free: boolean; unitPrice?: { usd: string }; description: string }[] };
      expect(models.models.find((m) => m.id === 'fake/kling-v1.6')).toMatchObject({ free: false, description: 'fake/kling-v1.6 via fakequeue: $2.38 for 5 s, $4.76 for 10 s' });
      await g.credit(10_000_000n);
      const five = await start(g, { prompt: 'a fox', model: 'fake/kling-v1.6' });
      expect(await g.balance()).toBe(10_000_000n - 2_380_000n);
      const ten = await start(g, { prompt: 'a fox running', model: 'fake/kling-v1.6', duration: 10 });
      expect(await g.balance()).toBe(10_000_000n - 2_380_000n - 4_760_000n);
      for (let i = 0; i < 6; i++) await g.runner.tick();
      expect(await status(g, five.runId)).toMatchObject({ status: 'COMPLETED', cost: 2.38 });
      expect(await status(g, ten.runId)).toMatchObject({ status: 'COMPLETED', cost: 4.76 });
      // 2.86 left: a third 10 s video is refused before anything is queued.
      const refused = await g.post('/api/generate-video', { conversationUUID: 'c', prompt: 'more', model: 'fake/kling-v1.6', duration: 10 });
      expect(refused.status).toBe(402);
      expect(await g.balance()).toBe(2_860_000n);
    } finally {
      await g.close();
    }
  });

  it('a failed job, a video URL that 404s: error status, nothing charged', async () => {
    const g = await mediaGateway(env());
    await g.credit(2_000_000n);
    fake.statuses = ['IN_PROGRESS', 'FAILED'];
    const failed = await start(g, { prompt: 'x', model: 'fake/kling-video/v2/master' });
    for (let i = 0; i < 4; i++) await g.runner.tick();
    expect(await status(g, failed.runId)).toMatchObject({ status: 'FAILED', error: 'The model could not render this prompt', cost: 0 });
    fake.statuses = ['COMPLETED'];
    fake.videoMissing = true;
    const missing = await start(g, { prompt: 'y', model: 'fake/kling-video/v2/master' });
    for (let i = 0; i < 4; i++) await g.runner.tick();
    const s = await status(g, missing.runId);
    expect(s.status).toBe('FAILED');
    expect(s.error).toContain('could not be downloaded (HTTP 404)');
    expect(await g.balance()).toBe(2_000_000n);
    fake.videoMissing = false;
    await g.close();
  });

  it("a result in another shape (no video url): FAILED with 'Failed to generate video - unexpected response structure...', nothing charged", async () => {
    const g = await mediaGateway(env());
    await g.credit(2_000_000n);
    fake.statuses = ['COMPLETED'];
    try {
      for (const shape of [{ output: ['https://example.com/v.mp4'] }, { video: { href: 'x' } }, null]) {
        fake.result = shape;
        const job = await start(g, { prompt: 'a lighthouse', model: 'fake/kling-video/v2/master' });
        for (let i = 0; i < 4; i++) await g.runner.tick();
        expect(await status(g, job.runId), JSON.stringify(shape)).toMatchObject({ status: 'FAILED', error: 'Failed to generate video - unexpected response structure...', cost: 0 });
      }
      expect(await g.balance()).toBe(2_000_000n);
    } finally {
      fake.result = undefined;
      await g.close();
    }
  });

  it('a status endpoint that flaps is retried, then the job completes', async () => {
    fake.statuses = ['flap', 'flap', 'IN_PROGRESS', 'flap', 'COMPLETED'];
    const g = await mediaGateway(env());
    const job = await start(g, { prompt: 'z', model: 'fake/minimax-video' });
    for (let i = 0; i < 12 && (await status(g, job.runId)).status !== 'COMPLETED'; i++) {
      await g.db.query(`UPDATE video_jobs SET next_check_at = now()`);
      await g.runner.tick();
    }
    expect((await status(g, job.runId)).status).toBe('COMPLETED');
    const sent = JSON.parse(fake.requests.find((r) => r.path === '/queue/fake/minimax-video')?.body ?? '{}') as Record<string, unknown>;
    expect(sent.prompt_optimizer).toBe(true);
    await g.close();
  });

  it('parallel paid requests never spend more than the balance: holds before any job is queued', async () => {
    fake.statuses = ['COMPLETED'];
    fake.videoMissing = false;
    const g = await mediaGateway(env());
    await g.credit(1_200_000n); // two videos of 0.5
    const submittedBefore = fake.submitted;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => g.post('/api/generate-video', { conversationUUID: 'c', prompt: `race ${i}`, model: 'fake/kling-video/v2/master', requestId: `race-request-${i}` })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((st) => st === 200)).toHaveLength(2);
    expect(statuses.filter((st) => st === 402)).toHaveLength(6);
    const refused = (await results.find((r) => r.status === 402)?.json()) as Record<string, unknown>;
    expect(refused).toMatchObject({ error: 'INSUFFICIENT_BALANCE', requiredUsd: '0.500000' });
    // Only the held requests became jobs; the rest reached no provider.
    const jobs = await g.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM video_jobs WHERE session_id = $1`, [g.session.data.id]);
    expect(jobs[0]?.n).toBe('2');
    expect(await g.balance()).toBe(200_000n);
    for (let i = 0; i < 6; i++) await g.runner.tick();
    expect(fake.submitted - submittedBefore).toBe(2);
    const charges = await g.db.query<{ n: string; total: string }>(
      `SELECT count(*)::text AS n, coalesce(sum(applied_usd_micro), 0)::text AS total FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`,
      [g.session.data.id],
    );
    expect(charges[0]).toEqual({ n: '2', total: '1000000' });
    expect(await g.balance()).toBe(200_000n);
    await g.close();
  });

  it('a job survives its gateway: a new gateway on the same database finishes it', async () => {
    fake.statuses = ['IN_PROGRESS', 'COMPLETED'];
    const g = await mediaGateway(env());
    await g.credit(1_000_000n);
    const job = await start(g, { prompt: 'restart', model: 'fake/kling-video/v2/master' });
    await g.runner.tick(); // submitted by the first gateway, which then "dies"
    const g2 = await mediaGateway(env(), { now: Date.now() }, g.db);
    for (let i = 0; i < 4; i++) await g2.runner.tick();
    expect((await status(g, job.runId)).status).toBe('COMPLETED');
    expect(await g.balance()).toBe(500_000n);
    await g.close();
  });
});

/**
 * A client that loses the answer of its generate call (it timed out at 300,000 ms, its connection dropped, it aborted
 * on purpose) settles the request with POST /api/generate-video/cancel and its requestId: never charged for a video it
 * cannot get, never given a video it did not pay for.
 */
describe('a generate call whose answer the client never read', () => {
  const KLING = 'fake/kling-video/v2/master';
  const cancel = async (g: G, requestId: string) => {
    const res = await g.post('/api/generate-video/cancel', { requestId, model: KLING });
    expect(res.status).toBe(200);
    return (await res.json()) as GenerateVideoResponse;
  };
  const charges = async (g: G) =>
    (await g.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_entries WHERE session_id = $1 AND kind = 'charge'`, [g.session.data.id]))[0]?.n;
  const asked = (prompt: string) => fake.requests.filter((r) => r.path === `/queue/${KLING}` && r.body.includes(prompt)).length;

  it('a provider already has the job: it is kept, charged once on completion, and the video is retrievable', async () => {
    fake.statuses = ['IN_PROGRESS', 'COMPLETED'];
    fake.videoMissing = false;
    const g = await mediaGateway(env());
    try {
      await g.credit(2_000_000n);
      // The client sends and goes away: the gateway's answer is never read.
      const dropped = g.post('/api/generate-video', { conversationUUID: 'c', prompt: 'a dropped answer', model: KLING, requestId: 'dropped-0001' });
      expect((await dropped).status).toBe(200);
      expect(await g.runner.tick()).toBe(1); // a provider is asked
      expect(asked('a dropped answer')).toBe(1);
      const found = await cancel(g, 'dropped-0001');
      expect(found).toMatchObject({ status: 'IN_PROGRESS', model: KLING, cost: 0 });
      for (let i = 0; i < 4 && (await status(g, found.runId)).status !== 'COMPLETED'; i++) await g.runner.tick();
      expect(await status(g, found.runId)).toMatchObject({ status: 'COMPLETED', cost: 0.5, paymentSource: 'USD', video_url: `/api/generate-video/file/${found.runId}` });
      expect((await g.get(`/api/generate-video/file/${found.runId}`)).status).toBe(200);
      // Asked again: the same job, still charged once.
      expect(await cancel(g, 'dropped-0001')).toMatchObject({ runId: found.runId, status: 'COMPLETED', cost: 0.5 });
      expect(await charges(g)).toBe('1');
      expect(await g.balance()).toBe(1_500_000n);
    } finally {
      await g.close();
    }
  });

  it('no provider has it yet: cancelled, the hold given back, no provider asked, and the POST sent again holds nothing', async () => {
    fake.statuses = ['COMPLETED'];
    const g = await mediaGateway(env());
    try {
      await g.credit(2_000_000n);
      const first = await start(g, { prompt: 'never started', model: KLING, requestId: 'unstarted-0001' });
      expect(await g.balance()).toBe(1_500_000n);
      const cancelled = await cancel(g, 'unstarted-0001');
      expect(cancelled).toMatchObject({ runId: first.runId, status: 'CANCELLED', cost: 0, video_url: null });
      expect(await g.balance()).toBe(2_000_000n);
      expect(await g.runner.tick()).toBe(0);
      expect(asked('never started')).toBe(0);
      // The same request again (a retry, or the first POST arriving late): the cancelled job, nothing held.
      expect(await start(g, { prompt: 'never started', model: KLING, requestId: 'unstarted-0001' })).toMatchObject({ runId: first.runId, status: 'CANCELLED' });
      expect(await g.balance()).toBe(2_000_000n);
      expect(await status(g, first.runId)).toMatchObject({ status: 'CANCELLED', error: 'The video request was cancelled before it started. You have not been charged.', cost: 0 });
      expect((await g.get(`/api/generate-video/file/${first.runId}`)).status).toBe(404);
      expect(await charges(g)).toBe('0');
    } finally {
      await g.close();
    }
  });

  it('a requestId cancelled before its POST arrives: the POST holds nothing and asks no provider', async () => {
    const g = await mediaGateway(env());
    try {
      await g.credit(2_000_000n);
      expect(await cancel(g, 'late-post-0001')).toMatchObject({ status: 'CANCELLED', cost: 0 });
      expect(await start(g, { prompt: 'a late post', model: KLING, requestId: 'late-post-0001' })).toMatchObject({ status: 'CANCELLED', cost: 0 });
      expect(await g.runner.tick()).toBe(0);
      expect(asked('a late post')).toBe(0);
      expect(await g.balance()).toBe(2_000_000n);
      // Another session's requestId of the same words names another job: nothing of this one is seen or cancelled.
      const other = await newSession(g.app);
      const res = await g.post('/api/generate-video/cancel', { requestId: 'late-post-0001' }, other.cookie);
      expect(((await res.json()) as GenerateVideoResponse).runId).not.toBe((await cancel(g, 'late-post-0001')).runId);
    } finally {
      await g.close();
    }
  });

  it('a cancel while a runner is asking the provider does not cancel: the job runs, is charged once, and is retrievable', async () => {
    fake.statuses = ['COMPLETED'];
    fake.videoMissing = false;
    const g = await mediaGateway(env());
    let open!: () => void;
    fake.submitGate = new Promise<void>((r) => (open = r));
    try {
      await g.credit(2_000_000n);
      const job = await start(g, { prompt: 'claimed mid-cancel', model: KLING, requestId: 'claimed-0001' });
      const ticking = g.runner.tick(); // claims the job and asks the provider, which has not answered yet
      for (let i = 0; i < 600 && asked('claimed mid-cancel') === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(asked('claimed mid-cancel')).toBe(1);
      expect(await cancel(g, 'claimed-0001')).toMatchObject({ runId: job.runId, status: 'IN_QUEUE' });
      open();
      await ticking;
      for (let i = 0; i < 4 && (await status(g, job.runId)).status !== 'COMPLETED'; i++) await g.runner.tick();
      expect(await status(g, job.runId)).toMatchObject({ status: 'COMPLETED', cost: 0.5 });
      expect((await g.get(`/api/generate-video/file/${job.runId}`)).status).toBe(200);
      expect(await charges(g)).toBe('1');
      expect(await g.balance()).toBe(1_500_000n);
    } finally {
      open();
      fake.submitGate = null;
      await g.close();
    }
  });

  it('an attacker cancelling as the runner claims: each job is either cancelled with no provider asked and nothing charged, or run and charged once', async () => {
    fake.statuses = ['COMPLETED'];
    fake.videoMissing = false;
    const g = await mediaGateway(env());
    try {
      await g.credit(10_000_000n);
      const outcomes: string[] = [];
      for (let i = 0; i < 6; i++) {
        const prompt = `race cancel ${i}`;
        const requestId = `race-cancel-${i}-0001`;
        // Parallel POSTs of one requestId: one hold, one job.
        const posts = await Promise.all([0, 1, 2].map(() => g.post('/api/generate-video', { conversationUUID: 'c', prompt, model: KLING, requestId })));
        expect(posts.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
        const [, answered] = await Promise.all([g.runner.tick(), cancel(g, requestId)]);
        for (let k = 0; k < 4; k++) await g.runner.tick();
        const end = await status(g, answered.runId);
        if (end.status === 'CANCELLED') {
          expect(asked(prompt)).toBe(0);
          expect(end.cost).toBe(0);
        } else {
          expect(asked(prompt)).toBe(1);
          expect(end).toMatchObject({ status: 'COMPLETED', cost: 0.5 });
        }
        outcomes.push(end.status);
      }
      const completed = outcomes.filter((s) => s === 'COMPLETED').length;
      expect(await charges(g)).toBe(String(completed));
      expect(await g.balance()).toBe(10_000_000n - BigInt(completed) * 500_000n);
      expect((await g.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM video_jobs WHERE session_id = $1`, [g.session.data.id]))[0]?.n).toBe('6');
    } finally {
      await g.close();
    }
  });
});
