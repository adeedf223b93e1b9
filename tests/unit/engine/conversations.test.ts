import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import { decodeLog } from '../../../src/events/codec';
import { upcast } from '../../../src/events/upcasters';
import type { InstructionRow } from '../../../src/events/model';
import { fold } from '../../../src/projections/fold';
import type { ConversationSummary, ConversationView, Notice } from '../../../src/protocol/engine';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { UNDO_WINDOW_MS } from '../../../src/worker/rooms/conversations/commands';
import { ParleyDB } from '../../../src/worker/db/schema';
import { Engine } from '../../../src/worker/engine';
import { readLog } from '../../../src/worker/log';
import { systemMessageFor } from '../../../src/worker/rooms/instructions/system-message';
import { startFakeUpstream, textReply, type FakeUpstream } from '../server/fake-upstream';
import { fetchThrough } from './harness';

let upstream: FakeUpstream;
let gateway: RunningGateway;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  upstream = await startFakeUpstream(textReply('Photosynthesis turns sunlight into sugar.'), { models: ['fake-model'] });
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: { PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'fake-model', PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' },
  });
  globalThis.fetch = fetchThrough(gateway.url, realFetch);
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
  await upstream?.close();
});

const engines: Engine[] = [];
let counter = 0;
function newEngine(dbName = `conversations-test-${++counter}`): Engine {
  const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
  engines.push(engine);
  return engine;
}
afterEach(async () => {
  vi.useRealTimers();
  for (const e of engines.splice(0)) await e.dispose();
});

function first<T>(o: Observable<T>, until: (v: T) => boolean): Promise<T> {
  return firstValueFrom(o.pipe(filter(until)));
}
const list = (engine: Engine, until: (v: ConversationSummary[]) => boolean = () => true) =>
  first(engine.observe({ kind: 'conversations' }) as Observable<ConversationSummary[]>, until);
const page = (engine: Engine, slug: string, until: (v: ConversationView) => boolean) =>
  first(engine.observe({ kind: 'conversation', slug }) as Observable<ConversationView | null>, (v) => v !== null && until(v)) as Promise<ConversationView>;

/** Sends a prompt in a new conversation and waits for its reply. */
async function chat(engine: Engine, prompt: string): Promise<string> {
  const r = await engine.sendMessage({ slug: null, prompt, model: 'fake-model' });
  if (!r.ok) throw new Error(r.error);
  await page(engine, r.slug, (v) => v.messages.some((m) => m.role === 'assistant' && m.status === 'done'));
  return r.slug;
}

/** The read models the database holds equal the log folded in Node. */
async function expectReplayMatches(engine: Engine, dbName: string): Promise<void> {
  const log = decodeLog(await engine.exportLog());
  const store = fold(log.events.map((e) => upcast(e, { validate: true })));
  const db = new ParleyDB(dbName);
  const byId = <T extends { id: number }>(rows: T[]) => [...rows].sort((a, b) => a.id - b.id);
  expect(byId(await db.conversations.toArray())).toEqual(store.rows('conversations'));
  expect(byId(await db.messages.toArray())).toEqual(store.rows('messages'));
  expect(byId(await db.instructions.toArray())).toEqual(store.rows('instructions'));
  db.close();
}

describe('conversation management', () => {
  it('renames: whitespace collapsed, at most 150 characters, a blank name refused', async () => {
    const engine = newEngine('rename');
    const slug = await chat(engine, 'Tell me about photosynthesis');
    expect(await engine.renameConversation(slug, '   ')).toEqual({ ok: false, error: 'A name is required' });
    expect(await engine.renameConversation(slug, '  Plants   and light ')).toEqual({ ok: true });
    expect((await list(engine, (l) => l[0]?.name === 'Plants and light'))[0]?.slug).toBe(slug);
    await engine.renameConversation(slug, 'x'.repeat(400));
    const long = await list(engine, (l) => l[0]?.name.startsWith('x') ?? false);
    expect(long[0]?.name).toHaveLength(150);
    expect(await engine.renameConversation('no-such-slug', 'Name')).toEqual({ ok: false, error: 'Conversation not found' });
    await expectReplayMatches(engine, 'rename');
  });

  it('deletes with undo: hidden at once, restored whole, and purged with its messages once the window passed', async () => {
    const engine = newEngine('delete');
    const keep = await chat(engine, 'First conversation');
    const gone = await chat(engine, 'Second conversation');
    expect(await engine.deleteConversation(gone)).toEqual({ ok: true });
    expect((await list(engine, (l) => l.length === 1)).map((c) => c.slug)).toEqual([keep]);
    const notice = engine.notices$.value.find((n) => n.title === 'Conversation deleted') as Notice;
    expect(notice).toMatchObject({ text: 'Second conversation', durationMs: UNDO_WINDOW_MS, action: { label: 'Undo', kind: 'undo', slug: gone } });

    expect(await engine.restoreConversation(gone)).toEqual({ ok: true });
    expect((await list(engine, (l) => l.length === 2)).map((c) => c.slug).sort()).toEqual([keep, gone].sort());
    expect((await page(engine, gone, () => true)).messages).toHaveLength(2);
    expect(engine.notices$.value.some((n) => n.title === 'Conversation deleted')).toBe(false);
    expect(await engine.restoreConversation(gone)).toEqual({ ok: false, error: 'Conversation not found' });

    // Deleted again; the engine goes away and the next one starts after the undo window: it purges.
    await engine.deleteConversation(gone);
    await engine.dispose();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + UNDO_WINDOW_MS + 1000);
    const next = newEngine('delete');
    await next.whenStarted();
    await vi.waitFor(async () => expect((await readLog(next.db)).at(-1)?.type).toBe('conversation.purged'), { timeout: 5000 });
    expect(await next.db.conversations.where('slug').equals(gone).count()).toBe(0);
    expect(await next.db.messages.where('conversationSlug').equals(gone).count()).toBe(0);
    expect(await next.db.messages.where('conversationSlug').equals(keep).count()).toBe(2);
    expect(await next.restoreConversation(gone)).toEqual({ ok: false, error: 'Conversation not found' });
    await expectReplayMatches(next, 'delete');
  });

  it('deletes several at once with one notice and one Undo that brings them all back', async () => {
    const engine = newEngine('bulk-delete');
    const keep = await chat(engine, 'Keep this one');
    const a = await chat(engine, 'Gone one');
    const b = await chat(engine, 'Gone two');
    // A slug named twice counts once; one already deleted or unknown is left out.
    expect(await engine.deleteConversations([a, b, a, 'no-such-slug'])).toEqual({ ok: true });
    expect((await list(engine, (l) => l.length === 1)).map((c) => c.slug)).toEqual([keep]);
    const notices = engine.notices$.value.filter((n) => n.title === 'Conversations deleted');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ text: '2 conversations', tone: 'blue', durationMs: UNDO_WINDOW_MS, action: { label: 'Undo', kind: 'undoMany' } });
    expect(notices[0]?.action?.kind === 'undoMany' && [...notices[0].action.slugs].sort()).toEqual([a, b].sort());
    expect(await engine.deleteConversations([a, b])).toEqual({ ok: false, error: 'Conversation not found' });

    expect(await engine.restoreConversations([a, b])).toEqual({ ok: true });
    expect((await list(engine, (l) => l.length === 3)).map((c) => c.slug).sort()).toEqual([keep, a, b].sort());
    expect((await page(engine, b, () => true)).messages).toHaveLength(2);
    expect(engine.notices$.value.some((n) => n.title === 'Conversations deleted')).toBe(false);
    expect(await engine.restoreConversations([a, b])).toEqual({ ok: false, error: 'Conversation not found' });

    // One event per conversation, so a replay of the log gives the same list.
    const types = (await readLog(engine.db)).map((e) => e.type);
    expect(types.filter((t) => t === 'conversation.deleted')).toHaveLength(2);
    expect(types.filter((t) => t === 'conversation.restored')).toHaveLength(2);
    // A selection of one says so in the singular.
    expect(await engine.deleteConversations([keep])).toEqual({ ok: true });
    expect(engine.notices$.value.find((n) => n.title === 'Conversations deleted')?.text).toBe('1 conversation');
    await expectReplayMatches(engine, 'bulk-delete');
  });

  it('lists pinned conversations first, most recently pinned first', async () => {
    const engine = newEngine('pin');
    const a = await chat(engine, 'Alpha');
    const b = await chat(engine, 'Bravo');
    const c = await chat(engine, 'Charlie');
    expect((await list(engine, (l) => l.length === 3)).map((x) => x.slug)).toEqual([c, b, a]);
    await engine.pinConversation(a, true);
    await engine.pinConversation(b, true);
    const pinned = await list(engine, (l) => l.filter((x) => x.pinned).length === 2);
    expect(pinned.map((x) => [x.slug, x.pinned])).toEqual([[b, true], [a, true], [c, false]]);
    await engine.pinConversation(b, false);
    expect((await list(engine, (l) => l.filter((x) => x.pinned).length === 1)).map((x) => x.slug)).toEqual([a, c, b]);
    await expectReplayMatches(engine, 'pin');
  });

  it("keeps a conversation's system prompt, which the request builders get filled in", async () => {
    const engine = newEngine('system-prompt');
    const slug = await chat(engine, 'Quiz me');
    expect(await engine.setConversationInstructions(slug, 'You are {{modelName}}. Be terse.')).toEqual({ ok: true });
    const row = await engine.db.conversations.where('slug').equals(slug).first();
    expect(systemMessageFor(row, 'Fake Model', Date.now())).toEqual({ role: 'system', content: 'You are Fake Model. Be terse.' });
    await expectReplayMatches(engine, 'system-prompt');
  });

  it('a new conversation takes the instructions chosen before its first message, else the default ones, and its first request carries them', async () => {
    const engine = newEngine('first-instructions');
    const systemOf = (index: number) => (upstream.requests.filter((r) => r.path.endsWith('/chat/completions'))[index]?.body?.messages?.[0] ?? null);
    const instructionsOf = async (slug: string) => (await engine.db.conversations.where('slug').equals(slug).first())?.instructions;
    const before = upstream.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

    // Chosen on the new conversation: stored with it and sent with the first message.
    const chosen = await engine.sendMessage({ slug: null, prompt: 'Teach me fractions', model: 'fake-model', instructions: 'Answer as {{modelName}}, in rhyme.' });
    if (!chosen.ok) throw new Error(chosen.error);
    await page(engine, chosen.slug, (v) => v.messages.some((m) => m.role === 'assistant' && m.status === 'done'));
    expect(await instructionsOf(chosen.slug)).toBe('Answer as {{modelName}}, in rhyme.');
    expect(systemOf(before)).toEqual({ role: 'system', content: 'Answer as fake-model, in rhyme.' });

    // None chosen: the default instructions of Settings; a later change of the default leaves it as it was.
    await engine.setPreferences({ defaultInstructions: 'Always answer in French.' });
    const byDefault = await chat(engine, 'Bonjour');
    expect(await instructionsOf(byDefault)).toBe('Always answer in French.');
    expect(systemOf(before + 1)).toEqual({ role: 'system', content: 'Always answer in French.' });
    await engine.setPreferences({ defaultInstructions: '' });
    expect(await instructionsOf(byDefault)).toBe('Always answer in French.');

    // 'Standard' chosen ('') over a default: nothing stored, the built-in prompt is sent.
    await engine.setPreferences({ defaultInstructions: 'Always answer in French.' });
    const standard = await engine.sendMessage({ slug: null, prompt: 'Plain please', model: 'fake-model', instructions: '' });
    if (!standard.ok) throw new Error(standard.error);
    await page(engine, standard.slug, (v) => v.messages.some((m) => m.role === 'assistant' && m.status === 'done'));
    expect(await instructionsOf(standard.slug)).toBeUndefined();

    // An existing conversation keeps its own: the field is ignored there.
    const again = await engine.sendMessage({ slug: chosen.slug, prompt: 'More', model: 'fake-model', instructions: 'ignored' });
    expect(again.ok).toBe(true);
    expect(await instructionsOf(chosen.slug)).toBe('Answer as {{modelName}}, in rhyme.');
    await page(engine, chosen.slug, (v) => v.messages.filter((m) => m.role === 'assistant' && m.status === 'done').length === 2);
    await expectReplayMatches(engine, 'first-instructions');
  });
});

describe('instruction presets', () => {
  it("creates, edits and deletes presets, listed by name with 'Standard' (id 0) always there", async () => {
    const engine = newEngine('presets');
    const presets = (until: (v: InstructionRow[]) => boolean) => first(engine.observe({ kind: 'instructions' }) as Observable<InstructionRow[]>, until);
    expect((await presets(() => true)).map((p) => [p.id, p.name])).toEqual([
      [0, 'Standard'],
      [-1, 'Study Mode'],
    ]);
    const pirate = await engine.createInstruction({ name: 'Pirate', instructions: 'Talk like a pirate.' });
    const brief = await engine.createInstruction({ name: 'Brief', instructions: 'One sentence.' });
    if (!pirate.ok || !brief.ok) throw new Error('create failed');
    expect((await presets((l) => l.length === 4)).map((p) => p.name)).toEqual(['Brief', 'Pirate', 'Standard', 'Study Mode']);
    expect(await engine.updateInstruction(pirate.id, { name: 'Corsair', instructions: 'Arr.' })).toEqual({ ok: true });
    expect((await presets((l) => l.some((p) => p.name === 'Corsair'))).find((p) => p.id === pirate.id)?.instructions).toBe('Arr.');
    expect(await engine.deleteInstruction(brief.id)).toEqual({ ok: true });
    expect((await presets((l) => l.length === 3)).map((p) => p.name)).toEqual(['Corsair', 'Standard', 'Study Mode']);
    expect(await engine.deleteInstruction(0)).toEqual({ ok: false, error: 'Built-in presets cannot be changed' });
    expect(await engine.updateInstruction(0, { name: 'Mine', instructions: 'x' })).toEqual({ ok: false, error: 'Built-in presets cannot be changed' });
    expect(await engine.createInstruction({ name: ' ', instructions: 'x' })).toEqual({ ok: false, error: 'A preset needs a name' });
    expect(await engine.deleteInstruction(brief.id)).toEqual({ ok: false, error: 'Preset not found' });
    await expectReplayMatches(engine, 'presets');
  });
});

describe('search', () => {
  it('finds conversations by message text and name as you type, follows new events, hides deleted ones', async () => {
    const engine = newEngine('search');
    const plants = await chat(engine, 'How do plants grow?');
    const rust = await chat(engine, 'Ownership rules in Rust');
    const hits = await engine.searchConversations('photosyn');
    expect(hits.map((h) => h.slug).sort()).toEqual([plants, rust].sort()); // the reply text of both
    expect(hits[0]?.snippet).toContain('Photosynthesis');
    expect((await engine.searchConversations('owners')).map((h) => [h.slug, h.name])).toEqual([[rust, 'Ownership rules in Rust']]);
    expect(await engine.searchConversations('o')).toEqual([]); // too short to search

    // Built now: later events keep it current.
    await engine.renameConversation(plants, 'Botany questions');
    expect((await engine.searchConversations('botany')).map((h) => h.slug)).toEqual([plants]);
    const third = await chat(engine, 'Tell me about quasars');
    expect((await engine.searchConversations('quasars')).map((h) => h.slug)).toEqual([third]);
    await engine.deleteConversation(third);
    expect(await engine.searchConversations('quasars')).toEqual([]);
    await engine.restoreConversation(third);
    expect((await engine.searchConversations('quasar')).map((h) => h.slug)).toEqual([third]);
    expect((await engine.searchConversations('ownership rul'))[0]?.slug).toBe(rust);
  });
});

describe('generated titles', () => {
  it('titles a conversation after its first reply when autoGenerateTitle is on, and never over a name the user chose', async () => {
    const engine = newEngine('titles');
    await engine.setPreferences({ autoGenerateTitle: true, hasBeenAskedAboutAutoTitle: true });
    const slug = await chat(engine, 'Could you explain how photosynthesis works in desert plants');
    const titled = await list(engine, (l) => l[0]?.name !== 'Could you explain how photosynthesis works in desert plants');
    expect(titled[0]?.name).toBe('Photosynthesis works desert plants');
    expect((await engine.db.conversations.where('slug').equals(slug).first())?.nameSource).toBe('generated');

    await engine.setPreferences({ autoGenerateTitle: false });
    const other = await chat(engine, 'Another question about volcanoes');
    await engine.renameConversation(other, 'My volcano notes');
    expect(await engine.generateTitle(other)).toEqual({ ok: true });
    expect((await engine.db.conversations.where('slug').equals(other).first())?.name).toBe('My volcano notes');
    await expectReplayMatches(engine, 'titles');
  });
});
