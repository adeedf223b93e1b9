import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import { makeEvent } from '../../../src/events/catalogue';
import type { LibraryRow } from '../../../src/events/model';
import type { Notice } from '../../../src/protocol/engine';
import type { LibraryItemView, LibraryPageView } from '../../../src/protocol/library';
import type { Engine } from '../../../src/worker/engine';
import { readLog } from '../../../src/worker/log';
import { makePptx } from '../attachments/fixtures';
import { useTestGateway } from './test-gateway';
import { extractInlineImages, INLINE_IMAGES_DONE_KEY, migrateInlineImages } from '../../../src/worker/rooms/library/migration';
import { attachmentLinkEvents, attachmentsForSubmit, FILES_NOT_READY } from '../../../src/worker/rooms/library/submit-attachments';

const { newEngine, forget } = useTestGateway();

function first<T>(o: Observable<T>, until: (v: T) => boolean): Promise<T> {
  return firstValueFrom(o.pipe(filter(until)));
}
const library = (e: Engine, search = '', page = 1, pageSize = 20): Observable<LibraryPageView> => e.observe({ kind: 'library', page, pageSize, search });
const attachments = (e: Engine, slug: string | null): Observable<LibraryItemView[]> => e.observe({ kind: 'attachments', slug });
const notices = (e: Engine): Observable<Notice[]> => e.observe({ kind: 'notices' });

describe('adding files', () => {
  it('a PPTX goes to the gateway: uploading, then completed with its text, on the new-conversation composer', async () => {
    const engine = newEngine();
    const r = await engine.addFile({ name: 'deck.pptx', file: new Blob([makePptx(['First slide', 'Second slide']) as BlobPart]), slug: null });
    expect(r).toMatchObject({ ok: true, name: 'deck.pptx' });
    const done = await first(library(engine), (p) => p.items[0]?.status === 'completed');
    expect(done.items[0]).toMatchObject({ name: 'deck.pptx', type: 'file', fileType: 'pptx', processedLocally: false });
    expect(done.items[0]?.preview).toContain('First slide');
    const chips = await first(attachments(engine, null), (a) => a.length === 1);
    expect(chips[0]?.name).toBe('deck.pptx');
    const statuses = (await readLog(engine.db)).filter((e) => e.type.startsWith('library.')).map((e) => (e.type === 'library.itemProgressed' ? `progress:${e.payload.status}` : e.type));
    expect(statuses).toEqual(['library.itemAdded', 'library.itemLinked', 'progress:uploading', 'library.itemCompleted']);
  });

  it('refuses an empty file, a file over the limit, an unknown type and a disguised image, each with its notice, adding nothing', async () => {
    const engine = newEngine();
    const empty = await engine.addFile({ name: 'empty.txt', file: new Blob([]), slug: null });
    expect(empty).toEqual({ ok: false, title: 'Error adding file', error: 'Unsupported file: the file is empty' });
    const huge = { size: 200 * 1024 * 1024, type: '', slice: () => { throw new Error('read'); } } as unknown as Blob;
    expect(await engine.addFile({ name: 'huge.pdf', file: huge, slug: null })).toMatchObject({ ok: false, error: expect.stringContaining('200.00 MB') });
    expect(await engine.addFile({ name: 'tool.exe', file: new Blob(['MZ']), slug: null })).toMatchObject({ ok: false, error: 'Unsupported file: unknown file format (.exe)' });
    const svg = new Blob(['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'], { type: 'image/png' });
    expect(await engine.addFile({ name: 'cat.png', file: svg, slug: null })).toEqual({ ok: false, title: 'Unsupported image format', error: 'Supported image formats: JPG, PNG, WEBP, BMP, TIFF.' });
    const html = new Blob(['<html><script>alert(1)</script></html>'], { type: 'text/html' });
    expect(await engine.addFile({ name: 'photo.jpg', file: html, slug: null })).toEqual({ ok: false, title: 'Error adding image', error: 'Please upload an image file (PNG, JPEG, WebP, etc.).' });
    const shown = await first(notices(engine), (n) => n.length >= 1);
    expect(shown.some((n) => n.tone === 'red' && n.durationMs === 10_000)).toBe(true);
    expect((await firstValueFrom(library(engine))).total).toBe(0);
    expect(await engine.db.files.count()).toBe(0);
  });

  it("says 'File size not supported' over 50 MB and 'Unsupported file' for an unknown type, and reports each to {api}/notion/unsupported-filetypes", async () => {
    const engine = newEngine();
    const reports: unknown[] = [];
    const gatewayFetch = globalThis.fetch;
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input) === '/notion/unsupported-filetypes') reports.push(JSON.parse(String(init?.body)));
      return gatewayFetch(input, init);
    };
    try {
      // Over 10 MB a document goes to the gateway (the analyser); over its 50 MB it is refused from the size alone.
      const over = { size: 50 * 1024 * 1024 + 1, type: '', slice: () => { throw new Error('read'); } } as unknown as Blob;
      const big = await engine.addFile({ name: 'big.txt', file: over, slug: null });
      expect(big).toEqual({ ok: false, title: 'Error adding file', error: 'File size not supported (50.00 MB). The maximum is 10 MB, or 50 MB for documents the server reads.' });
      const sizeNotice = await first(notices(engine), (n) => n.length >= 1);
      expect(sizeNotice.map((n) => [n.title, n.text, n.tone])).toEqual([['Error adding file', 'File size not supported (50.00 MB). The maximum is 10 MB, or 50 MB for documents the server reads.', 'red']]);
      const exe = await engine.addFile({ name: 'setup.xyz', file: new Blob(['0123456789']), slug: null });
      expect(exe).toEqual({ ok: false, title: 'Error adding file', error: 'Unsupported file: unknown file format (.xyz)' });
      // One notice per title: the newer text replaces the older.
      const typeNotice = await first(notices(engine), (n) => n.some((x) => x.text === 'Unsupported file: unknown file format (.xyz)'));
      expect(typeNotice.map((n) => [n.title, n.text, n.tone])).toEqual([['Error adding file', 'Unsupported file: unknown file format (.xyz)', 'red']]);
      // Fire-and-forget reports of each failed add (spec 000 section 7: filetype, filesizemb).
      await expect.poll(() => reports).toEqual([
        { filetype: 'txt', filesizemb: 50 },
        { filetype: 'xyz', filesizemb: 0 },
      ]);
    } finally {
      globalThis.fetch = gatewayFetch;
    }
  });

  it('a path-traversal name keeps only its base name', async () => {
    const engine = newEngine();
    const r = await engine.addFile({ name: '../../etc/slides.pptx', file: new Blob([makePptx(['x']) as BlobPart]), slug: null });
    expect(r).toMatchObject({ ok: true, name: 'slides.pptx' });
  });

  it('the same file twice on one composer is one attachment; remove takes it off, the library keeps it; delete removes it', async () => {
    const engine = newEngine();
    const file = new Blob([makePptx(['Only slide']) as BlobPart]);
    const a = await engine.addFile({ name: 'one.pptx', file, slug: null });
    const b = await engine.addFile({ name: 'one.pptx', file, slug: null });
    expect(a.ok && b.ok && a.id === b.id).toBe(true);
    const id = a.ok ? a.id : 0;
    expect(await engine.removeAttachment(null, id)).toEqual({ ok: true });
    expect(await firstValueFrom(attachments(engine, null))).toEqual([]);
    expect((await firstValueFrom(library(engine))).total).toBe(1);
    // Reuse puts it back on a composer.
    expect(await engine.attachLibraryItem(id, null)).toEqual({ ok: true });
    expect((await firstValueFrom(attachments(engine, null))).map((i) => i.id)).toEqual([id]);
    const stored = await engine.libraryFile(id);
    expect(stored.ok && stored.file.size).toBe(file.size);
    expect(await engine.deleteLibraryItem(id)).toEqual({ ok: true });
    expect((await firstValueFrom(library(engine))).total).toBe(0);
    expect(await engine.db.files.count()).toBe(0);
    expect(await engine.db.libraryConversations.count()).toBe(0);
  });

  it('the same bytes again, under another name or on another composer, reuse the one library row (by SHA-256)', async () => {
    const engine = newEngine();
    const bytes = makePptx(['Same slide']) as BlobPart;
    const a = await engine.addFile({ name: 'deck.pptx', file: new Blob([bytes]), slug: null });
    expect(await engine.removeAttachment(null, a.ok ? a.id : 0)).toEqual({ ok: true });
    const b = await engine.addFile({ name: 'deck (1).pptx', file: new Blob([bytes]), slug: null });
    const c = await engine.addFile({ name: 'deck.pptx', file: new Blob([bytes]), slug: null, attach: false });
    expect(a.ok && b.ok && c.ok && a.id === b.id && b.id === c.id).toBe(true);
    expect(await engine.db.library.count()).toBe(1);
    expect((await engine.db.library.toArray())[0]?.contentHash).toMatch(/^[0-9a-f]{64}$/);
    // Reused on the composer it was taken off.
    expect((await firstValueFrom(attachments(engine, null))).map((i) => i.id)).toEqual([a.ok ? a.id : 0]);
    // Other bytes are another row.
    const d = await engine.addFile({ name: 'deck.pptx', file: new Blob([makePptx(['Other slide']) as BlobPart]), slug: null });
    expect(d.ok && a.ok && d.id !== a.id).toBe(true);
    expect(await engine.db.library.count()).toBe(2);
  });

  it('a log with duplicate rows of one file (written before hashes) replays to one library row used in every message', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const now = Date.now();
    const dup = (id: number, at: number): LibraryRow => ({ id, createdAt: at, lastModified: at, fileId: id + 1, name: 'photo.jpg', content: [], processingTime: 0, type: 'image', status: 'completed', order: 1, sizeBytes: 900, originalSize: 11_000_000 });
    await engine.append([
      makeEvent('library.itemAdded', { item: dup(100, now) }, 'd1', now),
      makeEvent('library.itemAdded', { item: dup(200, now + 1) }, 'd2', now + 1),
      makeEvent('library.itemAdded', { item: { ...dup(300, now + 2), name: 'other.jpg' } }, 'd3', now + 2),
      makeEvent('library.messageLinked', { conversationSlug: 'a', links: [{ id: 401, messageId: 41, libraryId: 100 }], at: now }, 'm1', now),
      makeEvent('library.messageLinked', { conversationSlug: 'b', links: [{ id: 402, messageId: 42, libraryId: 200 }], at: now }, 'm2', now),
    ]);
    const page = await first(library(engine), (p) => p.total === 2);
    const photo = page.items.find((i) => i.name === 'photo.jpg');
    expect(photo).toMatchObject({ id: 100, messageCount: 2 });
    expect(page.items.find((i) => i.name === 'other.jpg')?.messageCount).toBe(0);
    // Deleting the row deletes both rows of that file.
    expect(await engine.deleteLibraryItem(100)).toEqual({ ok: true });
    expect((await engine.db.library.toArray()).map((r) => r.id)).toEqual([300]);
  });

  it('pasted text becomes Pasted text N.txt', async () => {
    const engine = newEngine();
    const r = await engine.addPastedText('x'.repeat(5000), null);
    expect(r).toMatchObject({ ok: true, name: 'Pasted text 1.txt' });
  });
});

describe('library page', () => {
  it('pages and searches by name, newest first', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const now = Date.now();
    const events = Array.from({ length: 25 }, (_, i) => {
      const item: LibraryRow = { id: 1000 + i, createdAt: now + i, lastModified: now + i, fileId: 5000 + i, name: i % 5 === 0 ? `report-${i}.pdf` : `notes-${i}.txt`, content: ['t'], processingTime: 0, type: 'file', status: 'completed', order: i };
      return makeEvent('library.itemAdded', { item }, `e${i}`, now);
    });
    await engine.append(events);
    const p1 = await firstValueFrom(library(engine, '', 1, 10));
    expect(p1.total).toBe(25);
    expect(p1.items.map((i) => i.name).slice(0, 2)).toEqual(['notes-24.txt', 'notes-23.txt']);
    const p3 = await firstValueFrom(library(engine, '', 3, 10));
    expect(p3.items).toHaveLength(5);
    const found = await firstValueFrom(library(engine, 'REPORT', 1, 10));
    expect(found.items.map((i) => i.name)).toEqual(['report-20.pdf', 'report-15.pdf', 'report-10.pdf', 'report-5.pdf', 'report-0.pdf']);
  });
});

describe('an upload survives the engine that started it', () => {
  it('a new engine finds the item uploading, asks the gateway about its job, and sends it again when unknown', async () => {
    const name = `handoff-${Date.now()}`;
    const first_ = newEngine(name);
    await first_.whenStarted();
    const now = Date.now();
    const item: LibraryRow = { id: 77, createdAt: now, lastModified: now, fileId: 78, name: 'late.pptx', content: [], processingTime: 0, type: 'file', status: 'uploading', order: 1, fileType: 'pptx', sizeBytes: 10, processing: 'server', jobId: `lib-77-${now}` };
    await first_.db.files.put({ id: 78, file: new Blob([makePptx(['Survived the reload']) as BlobPart]) });
    await first_.append([makeEvent('library.itemAdded', { item }, 'h1', now)]);
    await first_.dispose();
    forget(first_);
    const second = newEngine(name);
    const done = await first(library(second), (p) => p.items[0]?.status === 'completed');
    expect(done.items[0]?.preview).toContain('Survived the reload');
  });
});

describe('background migration of inline images (spec 000 section 4)', () => {
  it('moves inline images of old assistant messages into images, 3 messages per append, and is done after', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    // The engine's own first run (an empty database) ends by marking itself done; clear the mark as if these
    // messages were old ones found at a later start.
    for (let i = 0; i < 100 && (await engine.db.meta.get(INLINE_IMAGES_DONE_KEY)) === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    await engine.db.meta.delete(INLINE_IMAGES_DONE_KEY);
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const now = Date.now();
    const base = { conversationSlug: 'old', model: 'm', status: 'done' as const, parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0 };
    const events = [1, 2, 3, 4].map((n) =>
      makeEvent('message.added', { message: { ...base, id: n, timestamp: now + n, updatedAt: now + n, role: 'assistant', prompt: `Here it is ${n}:\n\n![chart](data:image/png;base64,${png})\n\nand <img alt="x" src="data:image/jpeg;base64,${png}"> done.` } }, `m${n}`, now),
    );
    events.push(makeEvent('message.added', { message: { ...base, id: 5, timestamp: now, updatedAt: now, role: 'user', prompt: `![u](data:image/png;base64,${png})` } }, 'm5', now));
    await engine.append(events);
    const appends: number[] = [];
    const sub = engine.events$.subscribe((batch) => appends.push(batch.filter((e) => e.type === 'message.imagesExtracted').length));
    expect(await migrateInlineImages(engine)).toBe(4);
    sub.unsubscribe();
    expect(appends).toEqual([3, 1]);
    const m1 = await engine.db.messages.get(1);
    expect(m1?.prompt).toBe('Here it is 1:\n\nand  done.');
    // References to Blobs in files (the bytes sniffed: the second says jpeg but is the same PNG), never base64.
    const bytes = Buffer.from(png, 'base64');
    expect(m1?.images?.map((i) => [i.mimeType, i.width, i.height, i.bytes])).toEqual([
      ['image/png', 1, 1, bytes.length],
      ['image/png', 1, 1, bytes.length],
    ]);
    const stored = await engine.db.files.get(m1?.images?.[0]?.fileId ?? -1);
    expect(Buffer.from((await (stored?.file as Blob | undefined)?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(bytes);
    expect((await engine.db.messages.get(5))?.images).toBeUndefined();
    expect(await migrateInlineImages(engine)).toBe(0);
    expect((await readLog(engine.db)).filter((e) => e.type === 'message.imagesExtracted')).toHaveLength(4);
  });

  it('leaves unclosed or non-image markup alone', () => {
    const text = `![${'['.repeat(1000)}](data:image/png;base64,${'A'.repeat(2000)}`;
    expect(extractInlineImages(text)).toEqual({ text, images: [] });
    expect(extractInlineImages('![x](data:text/html;base64,PHNjcmlwdD4=)').images).toEqual([]);
  });
});

describe('storage failure while adding an image', () => {
  it("gives 'Error adding image' / 'Failed to add image. Please try again.'", async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const put = engine.db.files.put.bind(engine.db.files);
    engine.db.files.put = (() => Promise.reject(new Error('QuotaExceededError'))) as unknown as typeof put;
    const r = await engine.addFile({ name: 'a.png', file: new Blob([png], { type: 'image/png' }), slug: null });
    engine.db.files.put = put;
    expect(r).toEqual({ ok: false, title: 'Error adding image', error: 'Failed to add image. Please try again.' });
  });
});

describe('the submit step for attachments', () => {
  it('a non-vision model gets the offline description of an image and the document text; links move to the new conversation', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const now = Date.now();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const image: LibraryRow = { id: 501, createdAt: now, lastModified: now, fileId: 601, name: 'dot.png', content: [], processingTime: 0, type: 'image', status: 'completed', order: 1, mimeType: 'image/png' };
    const doc: LibraryRow = { ...image, id: 502, fileId: 602, name: 'notes.txt', type: 'file', content: ['Meeting at noon.'], mimeType: 'text/plain' };
    await engine.db.files.put({ id: 601, file: new Blob([png], { type: 'image/png' }) });
    await engine.append([
      makeEvent('library.itemAdded', { item: image }, 's1', now),
      makeEvent('library.itemAdded', { item: doc }, 's2', now),
      makeEvent('library.itemLinked', { link: { id: 701, libraryId: 501, conversationId: 0 }, at: now }, 's3', now),
    ]);
    const model = { id: 'fake-model', name: 'Fake', modality: 'text' as const, provider: 'fake', pricing: { input: '0', output: '0' }, capabilities: ['chat'], free: true, offline: false };
    const r = await attachmentsForSubmit(engine, { libraryIds: [501, 502], prompt: 'What is this?', models: [model], budgetChars: 10_000, conversationUUID: 'u' });
    if (!r.ok) throw new Error(r.error);
    // The prompt stays the user's words; the files carry the description and the text.
    expect(r.prompt).toBe('What is this?');
    expect(r.files.map((f) => [f.name, f.text?.slice(0, 30)])).toEqual([
      ['dot.png', 'Image: a PNG image, 1×1 pixels'],
      ['notes.txt', 'Meeting at noon.'],
    ]);
    const vision = await attachmentsForSubmit(engine, { libraryIds: [501], prompt: 'Look', models: [{ ...model, id: 'gpt-4o' }], budgetChars: 10_000, conversationUUID: 'u' });
    expect(vision.ok && Array.isArray(vision.prompt) && vision.prompt.map((p) => p.type)).toEqual(['text', 'image_url']);
    // One model of several without image input: every model gets the description.
    const mixed = await attachmentsForSubmit(engine, { libraryIds: [501], prompt: 'Look', models: [{ ...model, id: 'gpt-4o' }, model], budgetChars: 10_000, conversationUUID: 'u' });
    expect(mixed.ok && mixed.prompt).toBe('Look');
    const events = await attachmentLinkEvents(engine, { slug: 'new-slug', conversationId: 42, created: true, messageId: 9, libraryIds: [501, 502], now });
    expect(events.map((e) => e.type)).toEqual(['library.itemUnlinked', 'library.itemLinked', 'library.messageLinked']);
  });

  it('refuses while a file is still being read', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const now = Date.now();
    await engine.append([makeEvent('library.itemAdded', { item: { id: 1, createdAt: now, lastModified: now, fileId: 2, name: 'a.pdf', content: [], processingTime: 0, type: 'file', status: 'processing', order: 1 } }, 'p', now)]);
    const model = { id: 'm', name: 'M', modality: 'text' as const, provider: 'p', pricing: { input: '0', output: '0' }, capabilities: [], free: true, offline: false };
    expect(await attachmentsForSubmit(engine, { libraryIds: [1], prompt: 'x', models: [model], budgetChars: 100, conversationUUID: 'u' })).toEqual({ ok: false, error: FILES_NOT_READY });
  });
});
