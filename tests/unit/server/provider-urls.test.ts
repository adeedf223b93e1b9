/**
 * A provider's answer cannot make the gateway fetch a private address (src/server/providers/provider-urls.ts): the
 * video queue's result URL and an image URL off the provider's own origin pass the scraper's SSRF guard, and the
 * queue's status and result URLs (which get the key) stay on the provider's origin.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IMAGE_FAILED } from '../../../src/protocol/media';
import { fetchProviderFile, onProviderOrigin } from '../../../src/server/providers/provider-urls';
import { QueueVideoProvider } from '../../../src/server/media/providers/video-queue';
import { startFakeMedia, type FakeMedia } from './fake-media';
import { mediaGateway } from './media-helpers';

let fake: FakeMedia;
/** A loopback port that counts connections: the "private service" a hostile answer points at. */
let trap: Server;
let trapPort = 0;
let connections = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  fake = await startFakeMedia();
  trap = createServer((s) => {
    connections++;
    sockets.add(s);
    s.destroy();
  });
  await new Promise<void>((r) => trap.listen(0, '127.0.0.1', () => r()));
  trapPort = (trap.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => trap.close(r));
  await fake.close();
});
beforeEach(() => {
  connections = 0;
  fake.fileUrl = null;
  fake.submitExtra = {};
  fake.statuses = ['COMPLETED'];
  fake.videoMissing = false;
});

const signal = () => AbortSignal.timeout(10_000);
const hostile = () => [
  `https://127.0.0.1:${trapPort}/v.mp4`,
  `https://localhost:${trapPort}/v.mp4`,
  `https://[::ffff:127.0.0.1]:${trapPort}/v.mp4`,
  `https://2130706433:${trapPort}/v.mp4`,
  'https://169.254.169.254/latest/meta-data/',
  'https://10.0.0.5/v.mp4',
  'https://[fd00::1]/v.mp4',
  `http://127.0.0.1:${trapPort}/v.mp4`,
  'file:///etc/passwd',
];

describe('fetchProviderFile', () => {
  it('refuses every private, loopback or link-local address off the provider origin, without connecting', async () => {
    for (const url of hostile()) {
      const r = await fetchProviderFile(url, `${fake.url}/queue`, { signal: signal(), maxBytes: 1024 });
      expect(r.ok, url).toBe(false);
      if (!r.ok) expect(r.unreachable, url).toBeUndefined();
    }
    expect(connections).toBe(0);
  });

  it('refuses a public-looking name that resolves to a private address', async () => {
    const test = { resolver: async () => [{ address: '10.1.2.3', family: 4 as const }] };
    const r = await fetchProviderFile('https://cdn.example/v.mp4', fake.url, { signal: signal(), maxBytes: 1024, test });
    expect(r).toMatchObject({ ok: false, message: expect.stringContaining('cdn.example is private') });
  });

  it('connects to the vetted address itself, not to what the name resolves to later', async () => {
    // The name resolves once, to the trap (allowed for this test only); the TLS handshake then fails there.
    const test = { resolver: async () => [{ address: '127.0.0.1', family: 4 as const }], allow: [{ address: '127.0.0.1', port: trapPort }] };
    const r = await fetchProviderFile(`https://files.example:${trapPort}/v.mp4`, fake.url, { signal: signal(), maxBytes: 1024, test });
    expect(r).toMatchObject({ ok: false, unreachable: true });
    expect(connections).toBe(1);
  });

  it("reads a file on the provider's own origin (a local server the operator configured), bounded", async () => {
    const ok = await fetchProviderFile('/files/image.png', `${fake.url}/v1`, { signal: signal(), maxBytes: 1024 * 1024 });
    expect(ok.ok).toBe(true);
    const big = await fetchProviderFile(`${fake.url}/files/image.png`, `${fake.url}/v1`, { signal: signal(), maxBytes: 10 });
    expect(big).toMatchObject({ ok: false, message: expect.stringContaining('larger than the gateway accepts') });
  });

  it('onProviderOrigin keeps only URLs on the configured origin', () => {
    expect(onProviderOrigin('/queue/x/status', 'https://queue.fal.run/fal-ai')).toBe('https://queue.fal.run/queue/x/status');
    expect(onProviderOrigin('https://queue.fal.run/a', 'https://queue.fal.run/fal-ai')).toBe('https://queue.fal.run/a');
    expect(onProviderOrigin('https://evil.example/a', 'https://queue.fal.run/fal-ai')).toBeNull();
    expect(onProviderOrigin('https://queue.fal.run:444/a', 'https://queue.fal.run/fal-ai')).toBeNull();
  });
});

describe('the video queue adapter', () => {
  it('a result URL at a private address fails the job and connects nowhere', async () => {
    const provider = new QueueVideoProvider('fq', `${fake.url}/queue`, 'fal-key');
    for (const url of hostile()) {
      fake.fileUrl = url;
      const handle = await provider.submit({ model: 'm', prompt: 'p', settings: {} }, 'run', signal());
      const poll = await provider.poll(handle, { model: 'm', prompt: 'p', settings: {} }, signal());
      expect(poll.state, url).toBe('failed');
    }
    expect(connections).toBe(0);
  });

  it('status and result URLs off the provider origin are ignored (the key is never sent there)', async () => {
    fake.submitExtra = { status_url: `http://127.0.0.1:${trapPort}/status`, response_url: `https://127.0.0.1:${trapPort}/result` };
    const provider = new QueueVideoProvider('fq', `${fake.url}/queue`, 'fal-key');
    const handle = await provider.submit({ model: 'm', prompt: 'p', settings: {} }, 'run', signal());
    const poll = await provider.poll(handle, { model: 'm', prompt: 'p', settings: {} }, signal());
    expect(poll.state).toBe('completed');
    expect(connections).toBe(0);
  });

  it('through the gateway: the job fails, nothing is charged', async () => {
    const g = await mediaGateway({
      PARLEY_VIDEO_PROVIDERS: JSON.stringify([{ name: 'fq', url: `${fake.url}/queue`, key: 'k', models: ['fake/kling'], pricing: { 'fake/kling': '0.5' } }]),
    });
    await g.credit(1_000_000n);
    fake.fileUrl = 'https://169.254.169.254/latest/meta-data/iam';
    const res = await g.post('/api/generate-video', { conversationUUID: 'c', prompt: 'a dragon', model: 'fake/kling' });
    const { runId } = (await res.json()) as { runId: string };
    for (let i = 0; i < 4; i++) await g.runner.tick();
    const status = (await (await g.get(`/api/generate-video/status?runId=${runId}&modelSlug=x`)).json()) as { data: { status: string; error: string; cost: number } };
    expect(status.data).toMatchObject({ status: 'FAILED', cost: 0 });
    expect(status.data.error).toContain('169.254.169.254 is linkLocal');
    expect(await g.balance()).toBe(1_000_000n);
    await g.close();
  });
});

describe('image URLs', () => {
  it('an image URL at a private address: the call fails, not charged, nothing fetched', async () => {
    const g = await mediaGateway({
      PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'fakeai', url: `${fake.url}/v1`, key: 'sk', models: ['cheap-image'], pricing: { 'cheap-image': '0.01' } }]),
    });
    await g.credit(1_000_000n);
    fake.image = 'url';
    fake.fileUrl = `https://localhost:${trapPort}/image.png`;
    const res = await g.post('/api/generate-image', { prompt: 'p', model: 'cheap-image', conversationUUID: 'c' });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: 'BAD_UPSTREAM_IMAGE', message: IMAGE_FAILED });
    expect(g.logs.join('\n')).toContain('is loopback');
    expect(await g.balance()).toBe(1_000_000n);
    expect(connections).toBe(0);
    fake.image = 'ok';
    await g.close();
  });
});
