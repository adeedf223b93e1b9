/**
 * Attachments through the whole submit flow (step 3 of spec 000 section 4) against the gateway and a fake upstream:
 * what the model receives for a non-vision and a vision model, the message's files, the links that take the chips
 * off the composer, a document cut to the context, a failed description, and a queued message that keeps its
 * attachments until it is sent. Library items are put in the log as read (the file worker needs a browser).
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { firstValueFrom } from 'rxjs';
import { makeEvent } from '../../../src/events/catalogue';
import type { LibraryRow, MessageRow } from '../../../src/events/model';
import type { Notice } from '../../../src/protocol/engine';
import type { LibraryItemView } from '../../../src/protocol/library';
import type { Engine } from '../../../src/worker/engine';
import { FILES_CHAT_ONLY, FILES_NOT_READY, libraryAttachmentStep } from '../../../src/worker/rooms/library/submit-attachments';
import { textReply, type FakeRequest } from '../server/fake-upstream';
import { until, useEngineStack } from './harness';

const stack = useEngineStack(() => textReply('Seen it.', { delayMs: 40 }), ['fake-model', 'gpt-4o']);

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
let nextId = 10_000;

/** A library item already read, on the composer of `conversationId` (0 = a new conversation). */
async function addItem(engine: Engine, over: Partial<LibraryRow> & { name: string }, conversationId = 0, bytes?: Buffer): Promise<number> {
  const now = Date.now();
  const id = ++nextId;
  const fileId = ++nextId;
  const item: LibraryRow = { id, createdAt: now, lastModified: now, fileId, content: [], processingTime: 0, type: 'file', status: 'completed', order: id, sizeBytes: 10, ...over };
  if (bytes) await engine.db.files.put({ id: fileId, file: new Blob([new Uint8Array(bytes)], { type: item.mimeType ?? '' }) });
  await engine.append([
    makeEvent('library.itemAdded', { item }, crypto.randomUUID(), now),
    makeEvent('library.itemLinked', { link: { id: ++nextId, libraryId: id, conversationId }, at: now }, crypto.randomUUID(), now),
  ]);
  return id;
}

const image = (engine: Engine, conversationId = 0) => addItem(engine, { name: 'dot.png', type: 'image', mimeType: 'image/png', sizeBytes: PNG.length }, conversationId, PNG);
const doc = (engine: Engine, text: string, conversationId = 0, name = 'notes.txt') => addItem(engine, { name, content: [text], mimeType: 'text/plain', sizeBytes: text.length }, conversationId);

/** The last user message of an upstream request. */
function lastUser(req: FakeRequest | undefined): unknown {
  const messages = (req?.body?.messages ?? []) as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === 'user').at(-1)?.content;
}

async function userMessage(engine: Engine, slug: string, index = 0): Promise<MessageRow> {
  const users = (await engine.db.messages.where('conversationSlug').equals(slug).sortBy('timestamp')).filter((m) => m.role === 'user');
  return users[index] as MessageRow;
}

const chips = (engine: Engine, slug: string | null) => firstValueFrom(engine.observe({ kind: 'attachments', slug })) as Promise<LibraryItemView[]>;

describe('attachments on send', () => {
  it('a non-vision model reads the image description and the document text after the prompt; the message keeps the words and the files', async () => {
    const engine = stack.engine('attach-describe');
    await engine.whenStarted();
    const ids = [await image(engine), await doc(engine, 'The launch is on Tuesday.')];
    expect((await chips(engine, null)).map((c) => c.name)).toEqual(['dot.png', 'notes.txt']);
    const before = stack.upstream.requests.length;
    const r = await engine.sendMessage({ slug: null, prompt: 'When is the launch?', model: 'fake-model', attachments: ids.map(String) });
    if (!r.ok) throw new Error(r.error);
    await stack.upstream.settled(before + 1);
    const content = lastUser(stack.upstream.requests[before]);
    expect(typeof content).toBe('string');
    expect(content).toMatch(/^When is the launch\?\n\n---\n\n\[Image: dot\.png\]\nImage: a PNG image, 1×1 pixels/);
    expect(content).toContain('\n\n[File: notes.txt]\nThe launch is on Tuesday.');
    const user = await userMessage(engine, r.slug);
    expect(user.prompt).toBe('When is the launch?');
    expect(user.files?.map((f) => [f.libraryId, f.name, f.type])).toEqual([
      [ids[0], 'dot.png', 'image'],
      [ids[1], 'notes.txt', 'file'],
    ]);
    // The chips left the new conversation's composer and did not reappear on the conversation's.
    expect(await chips(engine, null)).toEqual([]);
    expect(await chips(engine, r.slug)).toEqual([]);
    const links = await engine.db.messageLibrary.where('messageId').equals(user.id).toArray();
    expect(links.map((l) => l.libraryId).sort()).toEqual([...ids].sort());
    const page = await until<{ items: LibraryItemView[] }>(engine.observe({ kind: 'library', page: 1, pageSize: 20, search: '' }), (p) => p.items.every((i) => i.conversations.length === 1));
    expect(page.items.map((i) => i.conversations)).toEqual([[r.slug], [r.slug]]);
  });

  it('a vision model gets the image inline as an image_url part', async () => {
    const engine = stack.engine('attach-vision');
    await engine.whenStarted();
    const id = await image(engine);
    const before = stack.upstream.requests.length;
    const r = await engine.sendMessage({ slug: null, prompt: 'What is this?', model: 'gpt-4o', attachments: [String(id)] });
    if (!r.ok) throw new Error(r.error);
    await stack.upstream.settled(before + 1);
    expect(lastUser(stack.upstream.requests[before])).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
    const user = await userMessage(engine, r.slug);
    expect(Array.isArray(user.prompt)).toBe(true);
    // Its thumbnail is the library's (here the image itself: Node makes none).
    const row = await engine.db.library.get(id);
    expect(user.files).toEqual([{ libraryId: id, name: 'dot.png', type: 'image', sizeBytes: PNG.length, thumbId: row?.fileId }]);
  });

  it("a document longer than the model's context is cut, with the note on the message and in the prompt", async () => {
    const engine = stack.engine('attach-cut');
    await engine.whenStarted();
    await engine.loadModels();
    const context = engine.models$.value.models.find((m) => m.id === 'fake-model')?.contextLength ?? 32_768;
    const text = 'word '.repeat(context * 2);
    const id = await doc(engine, text, 0, 'huge.txt');
    const before = stack.upstream.requests.length;
    const r = await engine.sendMessage({ slug: null, prompt: 'Summarise', model: 'fake-model', attachments: [String(id)] });
    if (!r.ok) throw new Error(r.error);
    await stack.upstream.settled(before + 1);
    const user = await userMessage(engine, r.slug);
    const file = user.files?.[0];
    expect(file?.note).toMatch(/^\[Note: only the first [\d,]+ of [\d,]+ characters of huge\.txt \(\d+%\) fit the model's context; the rest was left out\.\]$/);
    expect(file?.text?.length).toBeLessThan(text.length);
    expect(String(lastUser(stack.upstream.requests[before]))).toContain(file?.note as string);
  });

  it("a description that fails becomes '[Image could not be described]' with 'Failed to get image description'", async () => {
    const engine = stack.engine('attach-fail');
    await engine.whenStarted();
    const id = await image(engine);
    const fetch = globalThis.fetch;
    globalThis.fetch = (input, init) => (String(input).includes('/api/image-description') ? Promise.resolve(new Response('{"error":"UPSTREAM","message":"down"}', { status: 502 })) : fetch(input, init));
    try {
      const before = stack.upstream.requests.length;
      const r = await engine.sendMessage({ slug: null, prompt: 'And this?', model: 'fake-model', attachments: [String(id)] });
      if (!r.ok) throw new Error(r.error);
      await stack.upstream.settled(before + 1);
      expect(lastUser(stack.upstream.requests[before])).toBe('And this?\n\n---\n\n[Image: dot.png]\n[Image could not be described]');
    } finally {
      globalThis.fetch = fetch;
    }
    const shown = await until<Notice[]>(engine.observe({ kind: 'notices' }), (n) => n.some((x) => x.title === 'Failed to get image description'));
    expect(shown.find((n) => n.title === 'Failed to get image description')?.text).toBe('[Image could not be described]');
  });

  it('a message with a file still being read is refused; a queued one keeps its attachments, off the composer, and sends them when the reply ends', async () => {
    const engine = stack.engine('attach-queue');
    await engine.whenStarted();
    const loading = await addItem(engine, { name: 'slow.pdf', status: 'processing' });
    expect(await engine.sendMessage({ slug: null, prompt: 'Read it', model: 'fake-model', attachments: [String(loading)] })).toEqual({ ok: false, error: FILES_NOT_READY });
    await engine.removeAttachment(null, loading);

    stack.upstream.setScript(textReply('A slow reply to the first message.', { delayMs: 150 }));
    const first = await engine.sendMessage({ slug: null, prompt: 'Hello', model: 'fake-model' });
    if (!first.ok) throw new Error(first.error);
    const conversation = await engine.db.conversations.where('slug').equals(first.slug).first();
    const id = await doc(engine, 'Budget: 42 apples.', conversation?.id);
    expect((await chips(engine, first.slug)).map((c) => c.id)).toEqual([id]);
    const before = stack.upstream.requests.length;
    const queued = await engine.sendMessage({ slug: first.slug, prompt: 'What is the budget?', model: 'fake-model', attachments: [String(id)] });
    expect(queued).toMatchObject({ ok: true, queued: true });
    const view = await until<{ queue: { attachments: string[] }[] }>(engine.observe({ kind: 'conversation', slug: first.slug }), (v) => v.queue.length === 1);
    expect(view.queue[0]?.attachments).toEqual([String(id)]);
    // The queued message holds it: the composer is free for the next one.
    expect(await chips(engine, first.slug)).toEqual([]);
    await until<{ queue: unknown[] }>(engine.observe({ kind: 'conversation', slug: first.slug }), (v) => v.queue.length === 0, 20_000);
    await stack.upstream.settled(before + 1);
    expect(String(lastUser(stack.upstream.requests[before]))).toBe('What is the budget?\n\n---\n\n[File: notes.txt]\nBudget: 42 apples.');
    const user = await userMessage(engine, first.slug, 1);
    expect(user.files?.map((f) => f.name)).toEqual(['notes.txt']);
    expect(await chips(engine, first.slug)).toEqual([]);
    stack.upstream.setScript(textReply('Seen it.', { delayMs: 40 }));
  });

  it('a queued message keeps its attachments across a reload, and the next engine sends them', async () => {
    stack.upstream.setScript(textReply('A reply cut by the reload.', { delayMs: 400 }));
    const first = stack.engine('attach-queue-reload');
    await first.whenStarted();
    const started = await first.sendMessage({ slug: null, prompt: 'Hello', model: 'fake-model' });
    if (!started.ok) throw new Error(started.error);
    const conversation = await first.db.conversations.where('slug').equals(started.slug).first();
    const id = await doc(first, 'Kept across the reload.', conversation?.id, 'kept.txt');
    const queued = await first.sendMessage({ slug: started.slug, prompt: 'And the file?', model: 'fake-model', attachments: [String(id)] });
    expect(queued).toMatchObject({ ok: true, queued: true });
    await first.dispose();

    stack.upstream.setScript(textReply('Seen it.', { delayMs: 40 }));
    const before = stack.upstream.requests.length;
    const second = stack.engine('attach-queue-reload');
    await second.whenStarted();
    // The next engine finds the queued message with its file, sends it, and the file is not back on the composer.
    await until<{ queue: unknown[] }>(second.observe({ kind: 'conversation', slug: started.slug }), (v) => v.queue.length === 0, 20_000);
    await until<{ messages: { role: string; status: string }[] }>(second.observe({ kind: 'conversation', slug: started.slug }), (v) => v.messages.filter((m) => m.role === 'assistant' && m.status === 'done').length >= 1, 20_000);
    const sent = stack.upstream.requests.slice(before).map(lastUser);
    expect(sent).toContain('And the file?\n\n---\n\n[File: kept.txt]\nKept across the reload.');
    const users = (await second.db.messages.where('conversationSlug').equals(started.slug).toArray()).filter((m) => m.role === 'user');
    expect(users.find((m) => m.prompt === 'And the file?')?.files?.map((f) => f.name)).toEqual(['kept.txt']);
    expect(await chips(second, started.slug)).toEqual([]);
  });

  it('files go with chat messages only', async () => {
    const engine = stack.engine('attach-mode');
    await engine.whenStarted();
    await engine.loadModels();
    const model = engine.models$.value.models[0];
    if (!model) throw new Error('no model');
    expect(await libraryAttachmentStep.prepare(engine, { prompt: 'a cat', attachments: ['1'], model, mode: 'image', now: Date.now() })).toEqual({ error: FILES_CHAT_ONLY });
  });
});
