/**
 * Rooms stop what they started when their engine is disposed (issue 21): a video status poll, a video generate
 * call, a text-to-speech poll, a payment status poll, a library document status poll, the nano deposit socket and a
 * conversation's purge timer and a notice's closing timer caught in flight by the dispose end there. Nothing is asked again, nothing is written to the closed database, and nothing rejects
 * unhandled (the leader tab hands over the same way).
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { filter, firstValueFrom, timeout } from 'rxjs';
import type { MessageRow } from '../../../src/events/model';
import { OFFLINE_VOICE_MODEL_ID } from '../../../src/protocol/speech-catalogue';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { Engine } from '../../../src/worker/engine';
import { SPEECH_STOPPED } from '../../../src/worker/rooms/speech/speaker';
import { CONVERSATIONS_ROOM, UNDO_WINDOW_MS } from '../../../src/worker/rooms/conversations/commands';
import { VIDEO_REQUEST_CANCELLED } from '../../../src/protocol/media';
import { makeEvent } from '../../../src/events/catalogue';
import type { LibraryRow } from '../../../src/events/model';
import { LIBRARY_JOBS } from '../../../src/worker/rooms/library/jobs';
import type { SocketLike } from '../../../src/worker/rooms/money/nano-socket';
import { fetchThrough, type JarFetch } from './harness';

let gateway: RunningGateway;
const realFetch = globalThis.fetch;
let jar: JarFetch;
/** Every path the engines asked for, in order. */
const asked: string[] = [];
/** Answers the test gives in place of the gateway's, by path. */
const overrides = new Map<string, () => Response>();
/**
 * Paths held, by prefix: a request waits until the test releases it (`entered` resolves when one arrives,
 * `answered` once its answer, the gateway's or an override, went back to the engine).
 */
const gates = new Map<string, { entered: () => void; released: Promise<void>; answered: () => void }>();

interface Held {
  entered: Promise<void>;
  release: () => void;
  answered: Promise<void>;
}

function gate(path: string): Held {
  let entered!: () => void;
  let release!: () => void;
  let answered!: () => void;
  const enteredP = new Promise<void>((r) => (entered = r));
  const released = new Promise<void>((r) => (release = r));
  const answeredP = new Promise<void>((r) => (answered = r));
  gates.set(path, { entered, released, answered });
  return { entered: enteredP, release, answered: answeredP };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: { PARLEY_OFFLINE_TOKEN_DELAY_MS: '0', PARLEY_OFFLINE_VIDEO_MS: '600000', PARLEY_VIDEO_WORKER_MS: '20' },
  });
  jar = fetchThrough(gateway.url, realFetch);
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), gateway.url);
    asked.push(url.pathname);
    const held = [...gates].find(([prefix]) => url.pathname.startsWith(prefix))?.[1];
    if (held) {
      held.entered();
      await held.released;
    }
    try {
      const override = overrides.get(url.pathname);
      if (override) return override();
      return await jar(input, init);
    } finally {
      held?.answered();
    }
  };
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  process.off('unhandledRejection', onUnhandled);
  await gateway?.close();
});

const engines: Engine[] = [];
let n = 0;
function newEngine(videoPollMs = 20, dbName = `rooms-dispose-${++n}`): Engine {
  const e = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName, videoPollMs });
  engines.push(e);
  return e;
}
afterEach(async () => {
  vi.useRealTimers();
  for (const e of engines.splice(0)) await e.dispose();
  overrides.clear();
  gates.clear();
  asked.length = 0;
  jar.forget();
  vi.restoreAllMocks();
});

const json = (body: unknown, status = 200) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** Lets whatever the released request set going run its course (several poll periods of the shortened clocks). */
const settle = () => new Promise((r) => setTimeout(r, 400));

async function assistantOf(engine: Engine, slug: string, done: (m: MessageRow) => boolean): Promise<MessageRow> {
  const view = await firstValueFrom(engine.observe({ kind: 'conversation', slug }).pipe(filter((v) => v !== null && v.messages.some((m) => m.role === 'assistant' && done(m))), timeout(60_000)));
  return view!.messages.find((m) => m.role === 'assistant') as MessageRow;
}

/**
 * Disposes the engine while `path` is held, then releases it and waits for its answer to reach the engine; returns
 * what the engine asked for and appended afterwards.
 */
async function disposeMidRequest(engine: Engine, held: Held): Promise<{ appends: number; askedAfter: string[] }> {
  await held.entered;
  const append = vi.spyOn(engine, 'append');
  await engine.dispose();
  engines.splice(engines.indexOf(engine), 1);
  const mark = asked.length;
  held.release();
  await held.answered;
  await settle();
  return { appends: append.mock.calls.length, askedAfter: asked.slice(mark) };
}

describe('a room stops its loops when the engine is disposed mid-poll', () => {
  it('video: the status answer that arrives after the dispose is dropped and no further status is asked', async () => {
    const engine = newEngine();
    const sent = await engine.generateVideo({ slug: null, prompt: 'forever', model: 'parley-offline-video' });
    expect(sent.ok).toBe(true);
    await assistantOf(engine, sent.ok ? sent.slug : '', (m) => m.videoStatus === 'processing');
    // Pending from here on: the next answer would be written (processing -> error after the 20 minutes, here a fake one).
    overrides.set('/api/generate-video/status', json({ data: { status: 'FAILED', video_url: null, error: 'boom', cost: 0, paymentSource: null } }));
    const held = gate('/api/generate-video/status');
    const after = await disposeMidRequest(engine, held);
    expect(after.appends).toBe(0);
    expect(after.askedAfter.filter((p) => p === '/api/generate-video/status')).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('video: an engine disposed while the generate call is in flight writes nothing; the next engine takes over the job the gateway made (not interrupted, not charged unseen)', async () => {
    const dbName = `rooms-dispose-${++n}`;
    const engine = newEngine(20, dbName);
    await engine.whenStarted();
    const held = gate('/api/generate-video');
    const sent = await engine.generateVideo({ slug: null, prompt: 'handover mid-call', model: 'parley-offline-video' });
    expect(sent.ok).toBe(true);
    const after = await disposeMidRequest(engine, held);
    // The gateway's answer came to a closed database: nothing is appended, nothing more is asked.
    expect(after.appends).toBe(0);
    expect(after.askedAfter.filter((p) => p.startsWith('/api/generate-video') || p === '/auth/local-session')).toEqual([]);
    expect(unhandled).toEqual([]);
    // The gateway made the job and a provider has it: it would run, and be charged, for no one to see.
    for (let i = 0; i < 600; i++) {
      const rows = await gateway.db.query<{ status: string }>(`SELECT status FROM video_jobs WHERE input->>'prompt' = 'handover mid-call'`);
      if (rows[0]?.status === 'submitted') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const next = newEngine(20, dbName);
    const reply = await assistantOf(next, sent.ok ? sent.slug : '', (m) => m.status !== 'pending');
    expect(reply.error ?? null).toBeNull();
    expect(reply.videoGenerationId).toMatch(/^vid_/);
    const job = await gateway.db.query<{ run_id: string }>(`SELECT run_id FROM video_jobs WHERE input->>'prompt' = 'handover mid-call'`);
    expect(job.map((j) => j.run_id)).toEqual([reply.videoGenerationId]);
    expect(asked).toContain('/api/generate-video/cancel');
  });

  it('video: a generate call that never reached the gateway, left by an engine that went away, is cancelled by the next engine: failed, nothing charged, never run', async () => {
    const dbName = `rooms-dispose-${++n}`;
    const engine = newEngine(20, dbName);
    await engine.whenStarted();
    // The call is dropped on the way: the gateway never sees it.
    const held = gate('/api/generate-video');
    overrides.set('/api/generate-video', () => {
      throw new TypeError('fetch failed');
    });
    const sent = await engine.generateVideo({ slug: null, prompt: 'never arrived', model: 'parley-offline-video' });
    expect(sent.ok).toBe(true);
    await held.entered;
    const slug = sent.ok ? sent.slug : '';
    const { requestId } = await assistantOf(engine, slug, (m) => m.status === 'pending');
    await engine.dispose();
    engines.splice(engines.indexOf(engine), 1);
    held.release();
    await held.answered;
    overrides.delete('/api/generate-video');
    const next = newEngine(20, dbName);
    // A reply that fails before its first token is recorded on the user message (the pending reply goes).
    const view = await firstValueFrom(next.observe({ kind: 'conversation', slug }).pipe(filter((v) => v !== null && v.messages.some((m) => m.role === 'user' && m.hasError === true)), timeout(60_000)));
    expect(view?.messages.find((m) => m.role === 'user')?.error).toBe(VIDEO_REQUEST_CANCELLED);
    expect(asked.filter((p) => p === '/api/generate-video/cancel')).toHaveLength(1);
    // The POST arriving now (late) is answered with the cancelled job and runs nothing.
    const late = await jar('/api/generate-video', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'never arrived', model: 'parley-offline-video', conversationUUID: 'c', requestId }),
    });
    expect(((await late.json()) as { status: string }).status).toBe('CANCELLED');
    const rows = await gateway.db.query<{ status: string }>(`SELECT status FROM video_jobs WHERE status <> 'cancelled' AND input->>'prompt' = 'never arrived'`);
    expect(rows).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('conversations: a purge timer armed when the engine started ends with it; nothing is purged and nothing rejects', async () => {
    const dbName = `rooms-dispose-${++n}`;
    const first = newEngine(20, dbName);
    const sent = await first.sendMessage({ slug: null, prompt: 'to be deleted', model: 'parley-offline' });
    if (!sent.ok) throw new Error(sent.error);
    await assistantOf(first, sent.slug, (m) => m.status === 'done');
    expect(await first.deleteConversation(sent.slug)).toEqual({ ok: true });
    const deletedAt = (await first.db.conversations.where('slug').equals(sent.slug).first())?.deletedAt ?? 0;
    expect(first.room(CONVERSATIONS_ROOM).pendingPurges).toBe(1);
    engines.splice(engines.indexOf(first), 1);
    await first.dispose();
    expect(first.room(CONVERSATIONS_ROOM).pendingPurges).toBe(0);
    // The next engine starts 300 ms before the undo window ends: it arms the purge for then.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(deletedAt + UNDO_WINDOW_MS - 300);
    const next = newEngine(20, dbName);
    await next.whenStarted();
    const room = next.room(CONVERSATIONS_ROOM);
    await vi.waitFor(() => expect(room.pendingPurges).toBe(1), { timeout: 60_000 });
    vi.useRealTimers();
    const append = vi.spyOn(next, 'append');
    engines.splice(engines.indexOf(next), 1);
    await next.dispose();
    expect(room.pendingPurges).toBe(0);
    // Past the moment the timer was set for: it does not fire on the closed database.
    await settle();
    await settle();
    expect(append).not.toHaveBeenCalled();
    expect(unhandled).toEqual([]);
  });

  it('text to speech: a reading waiting on its 202 poll ends at once, unrecorded', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const sent = await engine.sendMessage({ slug: null, prompt: 'say something', model: 'parley-offline' });
    expect(sent.ok).toBe(true);
    const reply = await assistantOf(engine, sent.ok ? sent.slug : '', (m) => m.status === 'done');
    overrides.set('/api/tts', json({ runId: 'run-1', model: OFFLINE_VOICE_MODEL_ID }, 202));
    overrides.set('/api/tts/status', json({ status: 'processing' }, 202));
    const held = gate('/api/tts');
    const reading = engine.readAloud(reply.id, { model: OFFLINE_VOICE_MODEL_ID });
    const after = await disposeMidRequest(engine, held);
    // The spec's poll is every 3 s, 60 times: without the room's stop it would still be waiting.
    await expect(reading).resolves.toEqual({ ok: false, error: SPEECH_STOPPED });
    expect(after.appends).toBe(0);
    expect(after.askedAfter.filter((p) => p === '/api/tts/status')).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('payment status: the poll in flight ends with the engine and asks nothing more', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    await engine.refreshSession();
    const held = gate('/transaction/status/');
    const made = await engine.createPayment('USD', '6');
    expect(made.ok).toBe(true);
    const after = await disposeMidRequest(engine, held);
    expect(after.appends).toBe(0);
    expect(after.askedAfter.filter((p) => p.startsWith('/transaction/status/'))).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('library: a document status poll in flight ends with the engine; its answer is dropped and nothing more is asked', async () => {
    const dbName = `rooms-dispose-${++n}`;
    // An item left uploading by an engine that went away: the next engine asks the gateway about its job.
    const seed = newEngine(20, dbName);
    await seed.whenStarted();
    const now = Date.now();
    const item: LibraryRow = { id: 91, createdAt: now, lastModified: now, fileId: 92, name: 'held.pptx', content: [], processingTime: 0, type: 'file', status: 'uploading', order: 1, fileType: 'pptx', sizeBytes: 10, processing: 'server', jobId: `lib-91-${now}` };
    await seed.db.files.put({ id: 92, file: new Blob(['not read']) });
    await seed.append([makeEvent('library.itemAdded', { item }, 'lib-seed', now)]);
    engines.splice(engines.indexOf(seed), 1);
    await seed.dispose();
    // Still processing, polled every 20 ms here (spec: 2 s): without the room's stop it would ask again at once.
    overrides.set('/api/process-document/status', () => new Response('{}', { status: 202, headers: { 'content-type': 'application/json' } }));
    const held = gate('/api/process-document');
    const engine = newEngine(20, dbName);
    engine.room(LIBRARY_JOBS).poll = { intervalMs: 20, attempts: 60 };
    const after = await disposeMidRequest(engine, held);
    expect(after.appends).toBe(0);
    expect(after.askedAfter.filter((p) => p.startsWith('/api/process-document'))).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('nano: a deposit address answered after the dispose opens no socket, and an open socket is closed for good', async () => {
    const sockets: { url: string; closed: boolean }[] = [];
    class FakeSocket implements SocketLike {
      readyState = 0;
      onopen: ((ev: unknown) => void) | null = null;
      onclose: ((ev: unknown) => void) | null = null;
      onerror: ((ev: unknown) => void) | null = null;
      onmessage: ((ev: { data: unknown }) => void) | null = null;
      private readonly record: { url: string; closed: boolean };
      constructor(url: string) {
        this.record = { url, closed: false };
        sockets.push(this.record);
      }
      send(): void {}
      close(): void {
        this.record.closed = true;
      }
    }
    vi.stubGlobal('WebSocket', FakeSocket);
    overrides.set('/nano/deposit-address', json({ address: 'nano_1depositaddressfortests', websockets: ['ws://node-a.invalid', 'ws://node-b.invalid'] }));
    try {
      // Disposed while the address is on its way: the answer opens nothing.
      const engine = newEngine();
      await engine.whenStarted();
      const held = gate('/nano/deposit-address');
      const watching = engine.money.watchNano();
      await disposeMidRequest(engine, held);
      await watching;
      expect(sockets).toEqual([]);

      // A socket connecting when the engine is disposed is closed, and no other node is tried after it.
      gates.clear();
      const second = newEngine();
      await second.whenStarted();
      expect(await second.money.watchNano()).toMatchObject({ ok: true });
      expect(sockets).toEqual([{ url: 'ws://node-a.invalid', closed: false }]);
      engines.splice(engines.indexOf(second), 1);
      await second.dispose();
      expect(sockets).toEqual([{ url: 'ws://node-a.invalid', closed: true }]);
      await settle();
      expect(sockets).toHaveLength(1);
      expect(unhandled).toEqual([]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('notices: a timed notice\'s closing timer ends with the engine', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const set = vi.spyOn(globalThis, 'setTimeout');
    // The spec's longest timed notice: 300 s, which would keep a disposed engine's timer alive for five minutes.
    engine.notify({ title: 'Long notice', text: 'Stays five minutes', tone: 'blue', durationMs: 300_000 });
    const call = set.mock.calls.findIndex((c) => c[1] === 300_000);
    expect(call).toBeGreaterThanOrEqual(0);
    const timer = set.mock.results[call]?.value as ReturnType<typeof setTimeout>;
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    engines.splice(engines.indexOf(engine), 1);
    await engine.dispose();
    expect(cleared).toHaveBeenCalledWith(timer);
    expect(unhandled).toEqual([]);
  });

  it('the catalogue: an engine disposed while it waits to ask again for the models asks no more', async () => {
    overrides.set('/api/models', () => new Response('{"error":"down"}', { status: 503, headers: { 'content-type': 'application/json' } }));
    const engine = newEngine();
    await engine.whenStarted();
    // The first answer failed: the engine waits (1 s, then 2 s ...) before it asks again.
    await firstValueFrom(engine.models$.pipe(filter((m) => m.error !== null), timeout(60_000)));
    engines.splice(engines.indexOf(engine), 1);
    await engine.dispose();
    const before = asked.length;
    await new Promise((r) => setTimeout(r, 3_500));
    expect(asked.slice(before).filter((p) => p === '/api/models')).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it('work an engine started and its dispose cut short reports no failure: the next engine resumes it', async () => {
    const reported = [vi.spyOn(console, 'error').mockImplementation(() => undefined), vi.spyOn(console, 'warn').mockImplementation(() => undefined)];
    // Disposed at once: the library's start-up work (its jobs, the inline image migration) finds the database closing.
    for (let i = 0; i < 3; i++) {
      const engine = newEngine();
      engines.splice(engines.indexOf(engine), 1);
      await engine.dispose();
    }
    await settle();
    expect(reported.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(' ')))).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});
