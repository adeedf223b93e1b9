import { describe, expect, it } from 'vitest';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { LibraryRow } from '../../../src/events/model';
import { checkPayload } from '../../../src/events/validate';
import { dedupeLibraryRows, libraryFileKey, libraryProjection } from '../../../src/projections/library';
import { MemoryStore } from '../../../src/projections/memory-store';
import { legacyLibraryEvents } from '../../../src/worker/db/legacy-library';
import { pollJob } from '../../../src/worker/rooms/library/jobs';
import { LIBRARY_POLL_ATTEMPTS, LIBRARY_POLL_MS } from '../../../src/protocol/attachments';

const item = (over: Partial<LibraryRow> = {}): LibraryRow => ({ id: 1, createdAt: 10, lastModified: 10, fileId: 2, name: 'a.pdf', content: [], processingTime: 0, type: 'file', status: 'processing', order: 1, ...over });

function apply(events: NewEvent[]): MemoryStore {
  const store = new MemoryStore();
  for (const e of events) store.applyAll(libraryProjection.apply(e));
  return store;
}

describe('library status transitions', () => {
  it('processing -> progress -> completed with the text', () => {
    const store = apply([
      makeEvent('library.itemAdded', { item: item() }, 'a', 10),
      makeEvent('library.itemProgressed', { id: 1, status: 'processing', progress: 0.5, at: 11 }, 'b', 11),
      makeEvent('library.itemCompleted', { id: 1, content: ['Text'], processingTime: 1.2, processedLocally: true, at: 12 }, 'c', 12),
    ]);
    expect(store.get('library', 1)).toMatchObject({ status: 'completed', content: ['Text'], progress: 1, processingTime: 1.2, processedLocally: true, lastModified: 12 });
  });

  it('uploading -> error with the message; delete takes its links', () => {
    const store = apply([
      makeEvent('library.itemAdded', { item: item({ status: 'uploading' }) }, 'a', 10),
      makeEvent('library.itemLinked', { link: { id: 5, libraryId: 1, conversationId: 9 }, at: 10 }, 'l', 10),
      makeEvent('library.messageLinked', { conversationSlug: 's', links: [{ id: 6, messageId: 3, libraryId: 1 }], at: 10 }, 'm', 10),
      makeEvent('library.itemFailed', { id: 1, error: 'Server processing failed: boom', at: 11 }, 'b', 11),
    ]);
    expect(store.get('library', 1)).toMatchObject({ status: 'error', error: 'Server processing failed: boom' });
    const after = apply([makeEvent('library.itemAdded', { item: item() }, 'a', 10), makeEvent('library.itemLinked', { link: { id: 5, libraryId: 1, conversationId: 9 }, at: 10 }, 'l', 10), makeEvent('library.itemDeleted', { id: 1, at: 12 }, 'd', 12)]);
    expect(after.get('library', 1)).toBeUndefined();
    expect(after.get('libraryConversations', 5)).toBeUndefined();
  });

  it('validates payloads read from outside', () => {
    expect(checkPayload('library.itemAdded', { item: item() })).toBeNull();
    expect(checkPayload('library.itemAdded', { item: item({ status: 'done' }) })).toMatch(/not a valid/);
    expect(checkPayload('library.itemProgressed', { id: 1, status: 'uploading', progress: null, at: 1 })).toBeNull();
    expect(checkPayload('library.itemUnlinked', { linkId: 'x', at: 1 })).toMatch(/not a valid/);
  });

  it('legacy rows are adopted with a known status', () => {
    const events = legacyLibraryEvents([item({ status: 'COMPLETED' }), item({ id: 2, status: 'weird' })], [{ id: 3, libraryId: 1, conversationId: 4 }], []);
    expect(events.map((e) => e.type)).toEqual(['library.itemAdded', 'library.itemAdded', 'library.itemLinked']);
    expect(events.map((e) => (e.type === 'library.itemAdded' ? e.payload.item.status : null))).toEqual(['completed', 'completed', null]);
  });
});

describe('one library row per identical file (issue 16)', () => {
  it('groups rows by content hash, and rows without one by type, name and size as added; the first row that did not fail is shown', () => {
    const store = apply([
      makeEvent('library.itemAdded', { item: item({ id: 1, createdAt: 10, contentHash: 'ab', name: 'x.pdf', status: 'error' }) }, 'a', 10),
      makeEvent('library.itemAdded', { item: item({ id: 2, createdAt: 11, contentHash: 'ab', name: 'copy of x.pdf' }) }, 'b', 11),
      makeEvent('library.itemAdded', { item: item({ id: 3, createdAt: 12, contentHash: 'ab' }) }, 'c', 12),
      makeEvent('library.itemAdded', { item: item({ id: 4, createdAt: 13, name: 'old.pdf', sizeBytes: 5 }) }, 'd', 13),
      makeEvent('library.itemAdded', { item: item({ id: 5, createdAt: 14, name: 'old.pdf', sizeBytes: 5 }) }, 'e', 14),
      makeEvent('library.itemAdded', { item: item({ id: 6, createdAt: 15, name: 'old.pdf', sizeBytes: 6 }) }, 'f', 15),
    ]);
    const rows = [1, 2, 3, 4, 5, 6].map((id) => store.get('library', id) as LibraryRow).reverse();
    const groups = dedupeLibraryRows(rows);
    expect(groups.map((g) => [g.row.id, g.ids])).toEqual([
      [6, [6]],
      [4, [4, 5]],
      [2, [1, 2, 3]],
    ]);
    expect(libraryFileKey(item({ contentHash: 'ab' }))).toBe('sha256:ab');
  });

  it('a thumbnail made with the image is kept on its row; a payload with a bad thumbId or hash is refused', () => {
    const store = apply([
      makeEvent('library.itemAdded', { item: item({ type: 'image' }) }, 'a', 10),
      makeEvent('library.itemCompleted', { id: 1, content: [], processingTime: 1, processedLocally: true, mimeType: 'image/jpeg', sizeBytes: 9, thumbId: 77, at: 12 }, 'c', 12),
    ]);
    expect(store.get('library', 1)).toMatchObject({ status: 'completed', thumbId: 77, mimeType: 'image/jpeg' });
    expect(checkPayload('library.itemCompleted', { id: 1, content: [], processingTime: 1, processedLocally: true, thumbId: 'x', at: 1 })).toMatch(/not a valid/);
    expect(checkPayload('library.itemAdded', { item: item({ contentHash: 5 as unknown as string }) })).toMatch(/not a valid/);
  });
});

describe('server-work polling (spec 000 section 4: every 2 s, up to 60 attempts)', () => {
  it('uses the spec constants', () => {
    expect(LIBRARY_POLL_MS).toBe(2000);
    expect(LIBRARY_POLL_ATTEMPTS).toBe(60);
  });

  it('stops after 60 attempts that were all still processing', async () => {
    let calls = 0;
    const r = await pollJob(async () => (calls++, { state: 'processing' as const }), new AbortController().signal, { intervalMs: 0, attempts: LIBRARY_POLL_ATTEMPTS });
    expect(r).toEqual({ state: 'timeout' });
    expect(calls).toBe(60);
  });

  it('answers at the first completed or unknown', async () => {
    let calls = 0;
    const r = await pollJob(async () => (++calls === 3 ? { state: 'completed' as const, answer: 'text' } : { state: 'processing' as const }), new AbortController().signal, { intervalMs: 0, attempts: 60 });
    expect(r).toEqual({ state: 'completed', answer: 'text' });
    expect(calls).toBe(3);
    expect(await pollJob(async () => ({ state: 'unknown' as const }), new AbortController().signal)).toEqual({ state: 'unknown' });
  });

  it('is cancelled by its signal', async () => {
    const controller = new AbortController();
    const p = pollJob(async () => ({ state: 'processing' as const }), controller.signal, { intervalMs: 10_000, attempts: 60 });
    controller.abort(new Error('stopped'));
    await expect(p).rejects.toThrow('stopped');
  });
});
