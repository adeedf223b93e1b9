/**
 * Engine memory with 1,000 images in the gallery (issue 9): the engine (on fake-indexeddb, in Node) opened on a
 * database holding 1,000 generated images (real PNGs, kept as Blobs in `files`), with the gallery query loaded,
 * against a baseline measured in the same run: the same 1,000
 * images as base64 strings in the message rows (what the engine would hold had it kept images as strings), every
 * conversation opened once in both. V8 heap after a full GC. Blobs live outside the JS heap and the gallery lists
 * metadata only: target at most a tenth of the strings' heap, and at most 2 KB of heap per image over the same
 * messages with no images at all.
 * In Chromium, IndexedDB keeps Blobs on disk; this Node figure is the engine's own share.
 */
import 'fake-indexeddb/auto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { filter, firstValueFrom } from 'rxjs';
import { makeEvent, type NewEvent } from '../../src/events/catalogue';
import type { MessageRow } from '../../src/events/model';
import { paint, sceneOf } from '../../src/server/media/art';
import { encodePng } from '../../src/server/media/png';
import { Engine } from '../../src/worker/engine';
import { size } from './smoke';
import type { Bench } from './types';

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

const IMAGES = size(1000, 40);
const PER_CONVERSATION = size(50, 20);

function heap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

function engineOn(dbName: string): Engine {
  return new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName, videoPollMs: 3_600_000 });
}

type Variant = 'blobs' | 'none' | 'base64';

async function seed(dbName: string, variant: Variant, png: Uint8Array): Promise<void> {
  const engine = engineOn(dbName);
  await engine.whenStarted();
  const b64 = Buffer.from(png).toString('base64');
  let id = 1;
  for (let c = 0; c < IMAGES / PER_CONVERSATION; c++) {
    const slug = `bench-${c}`;
    const events: NewEvent[] = [makeEvent('conversation.created', { conversation: { id: id++, uuid: `u${c}`, slug, name: `Pictures ${c}`, createdAt: c, updatedAt: c, latestMessage: '', isMediaOnly: true } }, `c${c}`, c)];
    for (let i = 0; i < PER_CONVERSATION; i++) {
      const base = { conversationSlug: slug, model: 'parley-offline-image', alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0 } as const;
      const user: MessageRow = { ...base, id: id++, timestamp: id, role: 'user', prompt: `picture number ${i} of a lighthouse`, status: 'done', parentMessageId: null, updatedAt: id };
      const reply: MessageRow = { ...base, id: id++, timestamp: id, role: 'assistant', prompt: variant === 'base64' ? `![image](data:image/png;base64,${b64})` : '', status: variant === 'blobs' ? 'pending' : 'done', parentMessageId: user.id, updatedAt: id };
      events.push(makeEvent('message.added', { message: user }, `u${user.id}`, id), makeEvent('message.added', { message: reply }, `a${reply.id}`, id));
      if (variant === 'blobs') {
        const fileId = id++;
        await engine.db.files.put({ id: fileId, file: new Blob([new Uint8Array(png)], { type: 'image/png' }) });
        events.push(makeEvent('image.generated', { messageId: reply.id, conversationSlug: slug, images: [{ fileId, thumbId: fileId, mimeType: 'image/png', width: 256, height: 256, bytes: png.length }], splitImages: false, taskId: null, cost: 0, paymentSource: null, isNSFW: false, at: id }, `g${reply.id}`, id));
      }
    }
    await engine.append(events);
  }
  await engine.dispose();
}

async function measure(dbName: string, variant: Variant): Promise<{ mb: number; items: number }> {
  const before = heap();
  const engine = engineOn(dbName);
  await engine.whenStarted();
  let items = 0;
  if (variant === 'blobs') {
    const gallery = await firstValueFrom(engine.observe({ kind: 'gallery' }).pipe(filter((g) => g.length === IMAGES)));
    items = gallery.length;
  }
  // Every conversation opened once (what a user browsing them loads), held while measuring.
  const views = [];
  for (let c = 0; c < IMAGES / PER_CONVERSATION; c++) views.push(await firstValueFrom(engine.observe({ kind: 'conversation', slug: `bench-${c}` }).pipe(filter((v) => v !== null))));
  const mb = heap() - before;
  if (views.length === 0) throw new Error('no views');
  await engine.dispose();
  return { mb, items };
}

const bench: Bench = async () => {
  const realFetch = globalThis.fetch;
  globalThis.fetch = () => Promise.reject(new Error('offline bench'));
  const log = console.warn;
  console.warn = () => undefined;
  try {
    const png = encodePng(paint(sceneOf('a lighthouse', 1), 256, 256), 256, 256);
    await seed('bench-gallery-blobs', 'blobs', png);
    await seed('bench-gallery-none', 'none', png);
    await seed('bench-gallery-base64', 'base64', png);
    const runs = { blobs: [] as number[], none: [] as number[], base64: [] as number[] };
    let items = 0;
    for (let round = 0; round < 3; round++) {
      for (const v of (round % 2 === 0 ? ['blobs', 'none', 'base64'] : ['base64', 'none', 'blobs']) as Variant[]) {
        const r = await measure(`bench-gallery-${v}`, v);
        runs[v].push(r.mb);
        if (v === 'blobs') items = r.items;
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] ?? Number.NaN;
    const blobs = med(runs.blobs);
    const none = med(runs.none);
    const base64 = med(runs.base64);
    const storedMb = (png.length * IMAGES) / (1024 * 1024);
    const perImageKb = ((blobs - none) * 1024) / IMAGES;
    return [
      {
        name: 'engine heap, 1,000 images in the gallery as Blobs vs as base64 strings in the rows',
        unit: 'MB',
        value: blobs,
        baseline: base64,
        ratio: blobs / base64,
        target: 'ratio <= 0.1 and <= 2 KB of heap per image',
        pass: blobs / base64 <= 0.1 && perImageKb <= 2,
        notes: `${items} gallery items; ${storedMb.toFixed(1)} MB of PNG stored as Blobs; the same messages without images: ${none.toFixed(2)} MB, so ${perImageKb.toFixed(2)} KB of heap per image; median of 3`,
      },
    ];
  } finally {
    globalThis.fetch = realFetch;
    console.warn = log;
  }
};

export default bench;
