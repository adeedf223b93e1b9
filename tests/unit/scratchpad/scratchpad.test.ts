/**
 * The scratchpad: its events (validation), its projection (pure fold), and the engine's commands and live query on
 * fake-indexeddb, with replay: the exported log folded in Node gives the same entries as the engine's table.
 */
import { describe, expect, it } from 'vitest';
import { filter, firstValueFrom } from 'rxjs';
import { decodeLog } from '../../../src/events/codec';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { ConversationRow, ScratchpadEntryRow } from '../../../src/events/model';
import { upcast } from '../../../src/events/upcasters';
import { checkPayload } from '../../../src/events/validate';
import { fold } from '../../../src/projections/fold';
import { scratchpadProjection } from '../../../src/projections/scratchpad';
import { SCRATCHPAD_ERROR, SCRATCHPAD_MAX_CHARS } from '../../../src/worker/rooms/scratchpad/commands';
import type { Engine } from '../../../src/worker/engine';
import { useOfflineEngines } from '../engine/offline-engine';

const T0 = 1_700_000_000_000;
const entry = (over: Partial<ScratchpadEntryRow> = {}): ScratchpadEntryRow => ({
  id: 1, content: 'print(1)', type: 'code', timestamp: T0, conversationSlug: 'chat', ...over,
});
const added = (e: ScratchpadEntryRow) => makeEvent('scratchpad.entryAdded', { entry: e }, `add-${e.id}`, e.timestamp);

describe('scratchpad events', () => {
  it('validate the entry (spec fields, known type) and the edit and delete payloads', () => {
    expect(checkPayload('scratchpad.entryAdded', { entry: entry() })).toBeNull();
    // Any type name is kept (rows adopted from the original app may carry their own); an empty one is not.
    expect(checkPayload('scratchpad.entryAdded', { entry: { ...entry(), type: 'poem' } })).toBeNull();
    expect(checkPayload('scratchpad.entryAdded', { entry: { ...entry(), type: '' } })).toMatch(/^payload\.entry\.type is not valid/);
    expect(checkPayload('scratchpad.entryAdded', { entry: { ...entry(), conversationSlug: undefined } })).toBe('payload.entry.conversationSlug is missing');
    expect(checkPayload('scratchpad.entryAdded', { entry: { ...entry(), id: 1.5 } })).toMatch(/^payload\.entry\.id is not an integer/);
    expect(checkPayload('scratchpad.entryEdited', { id: 1, conversationSlug: 'chat', content: 'x', at: T0 })).toBeNull();
    expect(checkPayload('scratchpad.entryEdited', { id: 1, conversationSlug: 'chat', at: T0 })).toBe('payload.content is missing');
    expect(checkPayload('scratchpad.entryDeleted', { id: 1, conversationSlug: 'chat', at: T0 })).toBeNull();
    expect(checkPayload('scratchpad.entryDeleted', { id: '1', conversationSlug: 'chat', at: T0 })).toMatch(/^payload\.id is not an integer/);
  });

  it('reply.completed may carry the input token count, and older events without it stay valid', () => {
    const base = { messageId: 1, conversationSlug: 'chat', text: 'ok', thinking: '', cost: 0, paymentSource: null, outputTokens: 3, at: T0 };
    expect(checkPayload('reply.completed', base)).toBeNull();
    expect(checkPayload('reply.completed', { ...base, inputTokens: 12 })).toBeNull();
    expect(checkPayload('reply.completed', { ...base, inputTokens: null })).toBeNull();
    expect(checkPayload('reply.completed', { ...base, inputTokens: 'many' })).toMatch(/^payload\.inputTokens is not valid/);
  });
});

describe('scratchpad projection', () => {
  it('adds, edits and deletes entries; a purged conversation takes its entries along, others stay', () => {
    const other = entry({ id: 3, conversationSlug: 'other', content: 'keep me' });
    const events: NewEvent[] = [
      added(entry()),
      added(entry({ id: 2, type: 'output', content: '1\n', timestamp: T0 + 1 })),
      added(other),
      makeEvent('scratchpad.entryEdited', { id: 1, conversationSlug: 'chat', content: 'print(2)', at: T0 + 2 }, 'e1', T0 + 2),
    ];
    let store = fold(events, [scratchpadProjection]);
    expect(store.rows('scratchpadEntries')).toEqual([entry({ content: 'print(2)' }), entry({ id: 2, type: 'output', content: '1\n', timestamp: T0 + 1 }), other]);

    store = fold([...events, makeEvent('scratchpad.entryDeleted', { id: 2, conversationSlug: 'chat', at: T0 + 3 }, 'd2', T0 + 3)], [scratchpadProjection]);
    expect(store.rows('scratchpadEntries').map((r) => r.id)).toEqual([1, 3]);

    // Deleted (restorable) keeps the entries; purged removes them.
    const deleted = makeEvent('conversation.deleted', { slug: 'chat', at: T0 + 4 }, 'cd', T0 + 4);
    expect(fold([...events, deleted], [scratchpadProjection]).rows('scratchpadEntries')).toHaveLength(3);
    const purged = makeEvent('conversation.purged', { slug: 'chat', at: T0 + 5 }, 'cp', T0 + 5);
    expect(fold([...events, deleted, purged], [scratchpadProjection]).rows('scratchpadEntries')).toEqual([other]);
  });

  it('an edit or delete of an entry that is not there changes nothing', () => {
    const store = fold(
      [
        added(entry()),
        makeEvent('scratchpad.entryEdited', { id: 99, conversationSlug: 'chat', content: 'x', at: T0 }, 'e', T0),
        makeEvent('scratchpad.entryDeleted', { id: 98, conversationSlug: 'chat', at: T0 }, 'd', T0),
      ],
      [scratchpadProjection],
    );
    expect(store.rows('scratchpadEntries')).toEqual([entry()]);
  });
});

// The engine needs no gateway here.
const newEngine = useOfflineEngines();

async function withConversation(engine: Engine, slug: string): Promise<void> {
  await engine.whenStarted();
  const now = Date.now();
  const conversation: ConversationRow = { id: now, uuid: `u-${slug}`, slug, name: slug, createdAt: now, updatedAt: now, latestMessage: '', isMediaOnly: false };
  await engine.append([makeEvent('conversation.created', { conversation }, `c-${slug}`, now)]);
}

const entries = (engine: Engine, slug: string, until: (rows: ScratchpadEntryRow[]) => boolean) =>
  firstValueFrom(engine.observe({ kind: 'scratchpad', slug }).pipe(filter(until)));

describe('scratchpad commands', () => {
  it('add, edit and delete entries; the live query lists them newest first; they survive a restart', async () => {
    const engine = newEngine('scratchpad-crud');
    await withConversation(engine, 'chat');
    await withConversation(engine, 'other');
    const first = await engine.addScratchpadEntry('chat', 'A note', 'note');
    const second = await engine.addScratchpadEntry('chat', 'Traceback (most recent call last):\nValueError: bad', 'output');
    await engine.addScratchpadEntry('other', 'elsewhere', 'message');
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;

    const listed = await entries(engine, 'chat', (rows) => rows.length === 2);
    expect(listed.map((r) => [r.content, r.type, r.conversationSlug])).toEqual([
      ['Traceback (most recent call last):\nValueError: bad', 'output', 'chat'],
      ['A note', 'note', 'chat'],
    ]);
    expect(listed[0]!.timestamp).toBeGreaterThanOrEqual(listed[1]!.timestamp);

    expect(await engine.editScratchpadEntry(first.id, 'A better note')).toEqual({ ok: true });
    await entries(engine, 'chat', (rows) => rows.some((r) => r.content === 'A better note'));
    expect(await engine.deleteScratchpadEntry(second.id)).toEqual({ ok: true });
    expect((await entries(engine, 'chat', (rows) => rows.length === 1)).map((r) => r.content)).toEqual(['A better note']);
    await engine.dispose();

    const again = newEngine('scratchpad-crud');
    await again.whenStarted();
    expect((await entries(again, 'chat', () => true)).map((r) => [r.id, r.content])).toEqual([[first.id, 'A better note']]);
    expect((await entries(again, 'other', () => true)).map((r) => r.content)).toEqual(['elsewhere']);
  });

  it('refuse empty or oversized text, an unknown type, and a conversation that does not exist; log nothing then', async () => {
    const engine = newEngine('scratchpad-refusals');
    await withConversation(engine, 'chat');
    expect(await engine.addScratchpadEntry('chat', '   \n', 'note')).toEqual({ ok: false, error: SCRATCHPAD_ERROR.empty });
    expect(await engine.addScratchpadEntry('chat', 'x'.repeat(SCRATCHPAD_MAX_CHARS + 1), 'note')).toEqual({ ok: false, error: SCRATCHPAD_ERROR.tooLong });
    expect(await engine.addScratchpadEntry('chat', 'x', 'poem' as 'note')).toEqual({ ok: false, error: SCRATCHPAD_ERROR.badType });
    expect(await engine.addScratchpadEntry('nowhere', 'x', 'note')).toEqual({ ok: false, error: SCRATCHPAD_ERROR.noConversation });
    expect(await engine.addScratchpadEntry('', 'x', 'note')).toEqual({ ok: false, error: SCRATCHPAD_ERROR.noConversation });
    expect(await engine.editScratchpadEntry(12345, 'x')).toEqual({ ok: false, error: SCRATCHPAD_ERROR.notFound });
    expect(await engine.deleteScratchpadEntry(12345)).toEqual({ ok: false, error: SCRATCHPAD_ERROR.notFound });
    const added = await engine.addScratchpadEntry('chat', 'fine', 'code');
    expect(added.ok).toBe(true);
    if (added.ok) expect(await engine.editScratchpadEntry(added.id, '')).toEqual({ ok: false, error: SCRATCHPAD_ERROR.empty });
    const log = decodeLog(await engine.exportLog());
    expect(log.events.filter((e) => e.type.startsWith('scratchpad.')).map((e) => e.type)).toEqual(['scratchpad.entryAdded']);
  });

  it('replay: the exported log folded in Node gives the engine\'s scratchpad table', async () => {
    const engine = newEngine('scratchpad-replay');
    await withConversation(engine, 'chat');
    const a = await engine.addScratchpadEntry('chat', 'one', 'note');
    await engine.addScratchpadEntry('chat', 'two', 'code');
    if (!a.ok) throw new Error(a.error);
    await engine.editScratchpadEntry(a.id, 'one, edited');
    const log = decodeLog(await engine.exportLog());
    const folded = fold(log.events.map((e) => upcast(e, { validate: true })));
    const table = await engine.db.scratchpadEntries.toArray();
    expect(folded.rows('scratchpadEntries').sort((x, y) => x.id - y.id)).toEqual(table.sort((x, y) => x.id - y.id));
    expect(table.map((r) => r.content).sort()).toEqual(['one, edited', 'two']);
  });
});

describe('scratchpad rows from before the log', () => {
  it('are adopted into the log once, before the projection first rebuilds: nothing is lost', async () => {
    const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
    const { ParleyDB } = await import('../../../src/worker/db/schema');
    const { ensureProjectionsCurrent, readLog } = await import('../../../src/worker/log');
    const db = new ParleyDB('legacy-scratchpad', { indexedDB: new IDBFactory(), IDBKeyRange });
    await db.open();
    await db.scratchpadEntries.bulkPut([
      { id: 7, content: 'old note', type: 'text', timestamp: 1_700_000_000, conversationSlug: 'chat' },
      { id: 8, content: 'older code', type: 'code', timestamp: 1_700_000_000_500, conversationSlug: 'chat' },
      { id: 9, content: 'no conversation' } as ScratchpadEntryRow,
    ]);
    await ensureProjectionsCurrent(db);
    const rows = await db.scratchpadEntries.orderBy(':id').toArray();
    // Seconds become milliseconds (spec 000 section 3); a row without its conversation cannot be kept.
    expect(rows).toEqual([
      { id: 7, content: 'old note', type: 'text', timestamp: 1_700_000_000_000, conversationSlug: 'chat' },
      { id: 8, content: 'older code', type: 'code', timestamp: 1_700_000_000_500, conversationSlug: 'chat' },
    ]);
    const log = await readLog(db);
    expect(log.map((e) => e.id)).toEqual(['legacy:scratchpad:7', 'legacy:scratchpad:8']);
    // Once: a second start adds nothing.
    await ensureProjectionsCurrent(db);
    expect(await readLog(db)).toHaveLength(2);
    db.close();
  });
});
