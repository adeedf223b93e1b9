/**
 * Issue 5, item 4, over a real socket (Node's response, as deployed): a stall is the upstream going silent, never
 * the client being slow. A reader that pauses longer than the stall limit still gets the whole reply and pays for
 * it; a reader that stops for good is taken as gone after PARLEY_CLIENT_TIMEOUT_MS, and its reply goes on without
 * it (kept for a resume, charged for what the upstream produced), so it can neither hold the reply (and its hold)
 * open forever nor wait out the hold's expiry to get it free.
 *
 * A paid text reply now relays at most its held output (at most 131,072 tokens: about 512 KiB, which loopback
 * socket buffers can hold whole), so these readers read image-capable chat models, whose image lines are priced per
 * image (1,290 tokens each) and can be megabytes: the paid replies a slow reader can still hold back.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { MultiStreamParser, type MultiStreamEvent } from '../../../src/worker/rooms/multimodel/multi-stream';
import { chunkLine, startFakeUpstream, type FakeScript, type FakeStep, type FakeUpstream } from './fake-upstream';
import { splitStream } from './helpers';
import { expectLedgerBalanced } from './money-checks';

// Wide apart, so that a busy machine's event-loop lag (the upstream, the gateway and this reader share one loop)
// is never taken for a stall or a gone client: a pause of 3x the stall limit stays 12 s inside the client timeout.
const STALL_MS = 1000;
const CLIENT_TIMEOUT_MS = 15_000;
// The largest output budget (asked for with maxTokens): room for every picture below.
const MAX_TOKENS = 131_072;
const USAGE = { prompt_tokens: 1000, completion_tokens: 2000 }; // 1000 x 1.5 + 2000 x 3 = $0.0075
/** Image-capable chat models (isImageChatModel), priced like the text ones. */
const IMAGE_MODELS = ['gemini-2.5-flash-image', 'gemini-2.5-flash-image-preview'];
// 64 pictures of 256 KiB of base64: 16 MiB, far more than the loopback socket buffers hold; 64 x 1,290 tokens held.
const PICTURE = 'iVBORw0KGgo'.padEnd(256 * 1024, 'A');
const PICTURES = 64;
/** What the gateway relays for them: one image line each (spec 000 section 7). */
const IMAGE_TEXT = `${JSON.stringify({ type: 'image', mimeType: 'image/png', data: PICTURE })}\n`.repeat(PICTURES);

/** One picture's SSE chunk per model, made once (making them per request would hold the shared event loop). */
const PICTURE_CHUNK = new Map(
  IMAGE_MODELS.map((m) => [m, chunkLine(m, 'c1', [{ index: 0, delta: { images: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PICTURE}` } }] }, finish_reason: null }])]),
);

/** A model's reply: PICTURES image deltas, paced by delayMs. */
function reply(model: string | undefined, delayMs: number): FakeScript {
  const raw = PICTURE_CHUNK.get(model ?? '') ?? '';
  const steps: FakeStep[] = [];
  for (let i = 0; i < PICTURES; i++) steps.push({ delayMs }, { raw });
  return { steps, usage: USAGE };
}

let gw: RunningGateway;
let up: FakeUpstream;

beforeAll(async () => {
  // Paced (the fake upstream shares this test's event loop: writing it all at once would hold it past the stall limit).
  up = await startFakeUpstream((req) => reply(req.body?.model, 1), { models: IMAGE_MODELS });
  gw = await startGateway({
    port: 0,
    memory: true,
    clientDir: null,
    inheritEnv: false,
    env: {
      PARLEY_UPSTREAM_URL: up.url,
      PARLEY_UPSTREAM_MODELS: IMAGE_MODELS.join(','),
      PARLEY_UPSTREAM_PRICING: JSON.stringify(Object.fromEntries(IMAGE_MODELS.map((m) => [m, { input: '1.5', output: '3' }]))),
      PARLEY_STALL_MS: String(STALL_MS),
      PARLEY_CLIENT_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS),
      PARLEY_RESUME_GRACE_MS: '10000',
    },
    log: () => {},
  });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

async function fundedSession(): Promise<{ cookie: string; id: string }> {
  const res = await fetch(`${gw.url}/auth/local-session`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const id = ((await res.json()) as { data: { id: string } }).data.id;
  await gw.ledger.credit(id, { key: `seed:${id}`, usdMicro: 1_000_000n });
  return { cookie, id };
}

function open(cookie: string, path: string, body: unknown): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const u = new URL(gw.url);
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'POST', headers: { cookie, 'content-type': 'application/json' } }, resolve);
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Reads the rest of a response; resolves with the text and whether the connection ended cleanly. */
function readAll(res: IncomingMessage, first = ''): Promise<{ text: string; complete: boolean }> {
  return new Promise((resolve) => {
    const parts = [first];
    res.setEncoding('utf8');
    res.on('data', (d: string) => parts.push(d));
    res.on('end', () => resolve({ text: parts.join(''), complete: true }));
    res.on('error', () => resolve({ text: parts.join(''), complete: false }));
    res.on('close', () => resolve({ text: parts.join(''), complete: res.complete }));
  });
}

function firstChunk(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    res.once('data', (d: Buffer) => {
      res.pause();
      resolve(d.toString('utf8'));
    });
  });
}

const balance = async (id: string): Promise<bigint> => (await gw.ledger.balance(id)).usdMicro;

describe('slow and stopped readers on a real socket', () => {
  it('a reader that pauses longer than the stall limit gets the whole reply and pays what the upstream says', async () => {
    const s = await fundedSession();
    const res = await open(s.cookie, '/api/stream-gpt', { model: IMAGE_MODELS[0], messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c', requestId: 'req-slow-socket-1', maxTokens: MAX_TOKENS });
    expect(res.statusCode, res.statusCode === 200 ? '' : (await readAll(res)).text).toBe(200);
    const first = await firstChunk(res);
    await new Promise((r) => setTimeout(r, STALL_MS * 3)); // stopped: the gateway's writes wait on this client
    res.resume();
    const { text, complete } = await readAll(res, first);
    expect(complete).toBe(true);
    const { body, meta } = splitStream(text);
    expect(body).toBe(IMAGE_TEXT);
    expect(meta.isStreamStall).toBeUndefined();
    expect(meta.error).toBeUndefined();
    expect(meta.cost).toBe(0.0075);
    expect(await balance(s.id)).toBe(992_500n);
  }, 120_000);

  it('a reader that stops for good is taken as gone: its reply finishes without it, is charged once and can be resumed', async () => {
    const s = await fundedSession();
    const res = await open(s.cookie, '/api/stream-gpt', { model: IMAGE_MODELS[0], messages: [{ role: 'user', content: 'hi' }], conversationUUID: 'c', requestId: 'req-stopped-socket', maxTokens: MAX_TOKENS });
    expect(res.statusCode, res.statusCode === 200 ? '' : (await readAll(res)).text).toBe(200);
    const first = await firstChunk(res); // and reads nothing more
    // Once nothing was accepted for the client timeout, the gateway drops the connection and the reply goes on
    // without the client: charged what the upstream reported, once, its hold closed.
    const openHolds = async (): Promise<string | undefined> =>
      (await gw.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_holds WHERE session_id = $1 AND status = 'held'`, [s.id]))[0]?.n;
    for (let i = 0; i < 1200 && (await openHolds()) !== '0'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await openHolds()).toBe('0');
    expect(await balance(s.id)).toBe(992_500n);
    await expectLedgerBalanced(gw.db, s.id);
    // The stopped client, reading again, finds its connection cut before the end.
    res.resume();
    const cut = await readAll(res, first);
    expect(cut.complete).toBe(false);
    expect(cut.text).not.toContain('<metadata>');
    // Whoever resumes it (the engine's next leader tab) gets all of it.
    const resumed = await readAll(await open(s.cookie, '/api/stream-gpt/resume', { requestId: 'req-stopped-socket' }));
    expect(resumed.text.startsWith(IMAGE_TEXT)).toBe(true);
    expect(resumed.text).toContain('"cost":0.0075');
    expect(up.requests).toHaveLength(2);
  }, 120_000);
});

describe('slow and stopped readers of a multi-model reply on a real socket', () => {
  const MODELS = IMAGE_MODELS;
  const multiBody = (requestId: string) => ({ conversationUUID: 'c', models: MODELS, prompt: 'hi', isMultiModel: true, requestId, maxTokens: MAX_TOKENS });
  const openHolds = async (id: string): Promise<string | undefined> =>
    (await gw.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger_holds WHERE session_id = $1 AND status = 'held'`, [id]))[0]?.n;

  function events(text: string): MultiStreamEvent[] {
    const p = new MultiStreamParser(null);
    return [...p.push(new TextEncoder().encode(text)), ...p.finish()];
  }

  it('a reader that pauses longer than the stall limit gets every model whole and pays what each upstream says', async () => {
    const s = await fundedSession();
    const res = await open(s.cookie, '/api/talk-to-gpt-multi', multiBody('req-multi-slow-1'));
    expect(res.statusCode, res.statusCode === 200 ? '' : (await readAll(res)).text).toBe(200);
    const first = await firstChunk(res);
    await new Promise((r) => setTimeout(r, STALL_MS * 3)); // stopped: the relays wait on this client, not on the upstreams
    res.resume();
    const { text, complete } = await readAll(res, first);
    expect(complete).toBe(true);
    const all = events(text);
    expect(all.some((e) => e.kind === 'malformed')).toBe(false);
    for (const id of MODELS) {
      const chunks = all.filter((e): e is Extract<MultiStreamEvent, { kind: 'chunk' }> => e.kind === 'chunk' && e.modelId === id);
      expect(chunks.map((e) => e.text).join('')).toBe(IMAGE_TEXT);
      const meta = all.find((e): e is Extract<MultiStreamEvent, { kind: 'metadata' }> => e.kind === 'metadata' && e.modelId === id);
      expect(meta?.metadata.isStreamStall).toBeUndefined();
      expect(meta?.metadata.error).toBeUndefined();
      expect(meta?.metadata.cost).toBe(0.0075);
    }
    expect(await balance(s.id)).toBe(1_000_000n - 2n * 7_500n);
    await expectLedgerBalanced(gw.db, s.id);
  }, 120_000);

  it('a reader that stops for good is taken as gone: both upstreams are aborted, the holds closed, the gateway keeps answering', async () => {
    const s = await fundedSession();
    const asked = up.requests.length;
    // Slower upstreams (about 38 s for all the pictures): still producing when the client is taken as gone.
    up.setScript((req) => reply(req.body?.model, 600));
    const res = await open(s.cookie, '/api/talk-to-gpt-multi', multiBody('req-multi-stopped'));
    expect(res.statusCode, res.statusCode === 200 ? '' : (await readAll(res)).text).toBe(200);
    const first = await firstChunk(res); // and reads nothing more
    // While the client holds the writes back, other requests are served at once.
    const health = await fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status).toBe(200);
    // After the client timeout the gateway drops the connection, aborts both upstreams and closes both holds.
    for (let i = 0; i < 1200 && (await openHolds(s.id)) !== '0'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await openHolds(s.id)).toBe('0');
    await up.settled();
    const mine = up.requests.slice(asked);
    expect(mine).toHaveLength(2);
    expect(mine.map((r) => r.aborted)).toEqual([true, true]);
    // Charged for what was relayed before the cut (no usage came: estimated from the text), at most each hold.
    const holds = await gw.db.query<{ status: string; max: string; settled: string | null }>(
      `SELECT status, max_usd_micro::text AS max, settled_usd_micro::text AS settled FROM ledger_holds WHERE session_id = $1 ORDER BY hold_key`,
      [s.id],
    );
    expect(holds.map((h) => h.status)).toEqual(['settled', 'settled']);
    for (const h of holds) expect(BigInt(h.settled ?? '0') > 0n && BigInt(h.settled ?? '0') <= BigInt(h.max)).toBe(true);
    expect(await balance(s.id)).toBe(1_000_000n - holds.reduce((sum, h) => sum + BigInt(h.settled ?? '0'), 0n));
    await expectLedgerBalanced(gw.db, s.id);
    res.resume();
    const cut = await readAll(res, first);
    expect(cut.complete).toBe(false);
    up.setScript((req) => reply(req.body?.model, 1));
  }, 120_000);
});
