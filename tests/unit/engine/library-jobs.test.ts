/**
 * The library's reading jobs through the engine, with the file worker replaced (Node has no Web Worker): images
 * go through the real prepareImage (or a controlled fake for concurrent compressions), documents through a fake
 * reader, and server work through the real in-process gateway.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import { makeEvent } from '../../../src/events/catalogue';
import type { LibraryRow } from '../../../src/events/model';
import type { Notice } from '../../../src/protocol/engine';
import type { LibraryPageView } from '../../../src/protocol/library';
import type { Engine } from '../../../src/worker/engine';
import type { ImageValidation } from '../../../src/worker/rooms/library/attachments/image';
import { readLog } from '../../../src/worker/log';
import { attachmentCalls } from '../../../src/worker/rooms/library/gateway-calls';
import { attachmentsForSubmit } from '../../../src/worker/rooms/library/submit-attachments';
import { makeDocx, makePptx } from '../attachments/fixtures';
import { useTestGateway } from './test-gateway';

const fake = vi.hoisted(() => ({
  /** When set, prepareImage calls this instead of the real one. */
  prepareImage: null as null | ((blob: Blob, name: string, enabled: boolean, onCompressing: () => void) => Promise<unknown>),
  read: async (blob: Blob): Promise<{ text: string }> => ({ text: await blob.text() }),
  enabledSeen: [] as boolean[],
}));

vi.mock('../../../src/worker/rooms/library/file-jobs', async () => {
  const image = await import('../../../src/worker/rooms/library/attachments/image');
  const api = {
    prepareImage: (blob: Blob, name: string, enabled: boolean, onCompressing: () => void) => {
      fake.enabledSeen.push(enabled);
      return fake.prepareImage ? fake.prepareImage(blob, name, enabled, onCompressing) : image.prepareImage(blob, name, { compressionEnabled: enabled, onCompressing });
    },
    // Node has no OffscreenCanvas: the image is its own thumbnail.
    thumbnail: async (): Promise<Blob | null> => null,
    readPdf: (blob: Blob) => fake.read(blob),
    readDocx: (blob: Blob) => fake.read(blob),
    readText: (blob: Blob) => fake.read(blob),
  };
  return { withFileWorker: <T>(job: (a: typeof api) => Promise<T>) => job(api) };
});

const { newEngine } = useTestGateway();
const CORPUS = join(__dirname, '../../fixtures/documents');

function first<T>(o: Observable<T>, until: (v: T) => boolean): Promise<T> {
  return firstValueFrom(o.pipe(filter(until)));
}
const library = (e: Engine): Observable<LibraryPageView> => e.observe({ kind: 'library', page: 1, pageSize: 20, search: '' });
const notices = (e: Engine): Observable<Notice[]> => e.observe({ kind: 'notices' });
const settled = (e: Engine, name: string) => first(library(e), (p) => p.items.some((i) => i.name === name && (i.status === 'completed' || i.status === 'error')));

/** A PNG-looking Blob of `size` bytes (signature and IHDR, then zeros). */
function png(size: number): Blob {
  const bytes = new Uint8Array(size);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  return new Blob([bytes], { type: 'image/png' });
}

/** The statuses an item went through, from the log: its added status, then each progress, then the outcome. */
async function statuses(engine: Engine, id: number): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readLog(engine.db)) {
    if (e.type === 'library.itemAdded' && e.payload.item.id === id) out.push(e.payload.item.status);
    if (e.type === 'library.itemProgressed' && e.payload.id === id) out.push(e.payload.status);
    if (e.type === 'library.itemCompleted' && e.payload.id === id) out.push('completed');
    if (e.type === 'library.itemFailed' && e.payload.id === id) out.push('error');
  }
  return out.filter((s, i) => s !== out[i - 1]);
}

async function added(engine: Engine, name: string, file: Blob): Promise<number> {
  const r = await engine.addFile({ name, file, slug: null });
  if (!r.ok) throw new Error(r.error);
  return r.id;
}

describe('library file status (spec 000 section 3): not started, then uploading or processing, then completed or error', () => {
  it('a text file read in the browser: not started, processing, completed', async () => {
    const engine = newEngine();
    const id = await added(engine, 'notes.txt', new Blob(['Some notes'], { type: 'text/plain' }));
    expect((await settled(engine, 'notes.txt')).items[0]?.status).toBe('completed');
    expect(await statuses(engine, id)).toEqual(['not started', 'processing', 'completed']);
  });

  it('a PPTX the gateway reads: not started, uploading, completed', async () => {
    const engine = newEngine();
    const id = await added(engine, 'deck.pptx', new Blob([makePptx(['One slide']) as BlobPart]));
    await settled(engine, 'deck.pptx');
    expect(await statuses(engine, id)).toEqual(['not started', 'uploading', 'completed']);
  });

  it('an image: not started, processing, completed', async () => {
    const engine = newEngine();
    const id = await added(engine, 'small.png', png(2_000));
    await settled(engine, 'small.png');
    expect(await statuses(engine, id)).toEqual(['not started', 'processing', 'completed']);
  });

  it('a file whose reading fails: not started, processing, error', async () => {
    const engine = newEngine();
    fake.read = () => Promise.reject(new Error('pdf.js gave up'));
    try {
      const id = await added(engine, 'broken.pdf', new Blob(['%PDF-1.7 truncated']));
      await settled(engine, 'broken.pdf');
      expect(await statuses(engine, id)).toEqual(['not started', 'processing', 'error']);
    } finally {
      fake.read = async (blob) => ({ text: await blob.text() });
    }
  });
});

describe('upload failures shown to the user (spec 000 section 8)', () => {
  async function failure(engine: Engine, name: string): Promise<{ error: string | null | undefined; notice: Notice | undefined }> {
    const page = await settled(engine, name);
    const shown = await first(notices(engine), (n) => n.some((x) => x.text.startsWith(`${name}: `)));
    return { error: page.items.find((i) => i.name === name)?.error, notice: shown.find((x) => x.text.startsWith(`${name}: `)) };
  }

  it("a truncated DOCX neither the browser nor the gateway can read: 'Unable to process .docx file…'", async () => {
    const engine = newEngine();
    fake.read = () => Promise.reject(new Error('mammoth: corrupt zip'));
    try {
      const docx = makeDocx(['Hostile']).slice(0, 120);
      await added(engine, 'hostile.docx', new Blob([docx as BlobPart]));
      const r = await failure(engine, 'hostile.docx');
      expect(r.error).toBe('Unable to process .docx file. Both client-side and server-side processing failed.');
      expect(r.notice).toMatchObject({ title: 'Error adding file', text: 'hostile.docx: Unable to process .docx file. Both client-side and server-side processing failed.', tone: 'red', durationMs: 10_000 });
    } finally {
      fake.read = async (blob) => ({ text: await blob.text() });
    }
  });

  it("a damaged PPTX the gateway refuses: 'Server processing failed: {reason}' with the gateway's reason", async () => {
    const engine = newEngine();
    await added(engine, 'damaged.pptx', new Blob([makePptx(['x']).slice(0, 200) as BlobPart]));
    const r = await failure(engine, 'damaged.pptx');
    expect(r.error).toMatch(/^Server processing failed: .+/);
    expect(r.notice?.text).toBe(`damaged.pptx: ${r.error}`);
  });

  it('a password-protected DOCX or PDF: refused in the browser with the one message, nothing sent to the gateway', async () => {
    const engine = newEngine();
    const { readDocx, readPdf } = await import('../../../src/worker/rooms/library/attachments/documents');
    const pdfjs = (await import('pdfjs-dist/legacy/build/pdf.mjs')) as unknown as Parameters<typeof readPdf>[0];
    const sent = vi.spyOn(attachmentCalls, 'processDocument');
    fake.read = async (blob) => {
      const data = await blob.arrayBuffer();
      return new Uint8Array(data)[0] === 0x25 ? readPdf(pdfjs, new Uint8Array(data)) : readDocx(data);
    };
    try {
      for (const name of ['protected.docx', 'protected.pdf']) {
        await added(engine, name, new Blob([readFileSync(join(CORPUS, 'protected', name))]));
        const r = await failure(engine, name);
        expect(r.error).toBe('This file is password-protected. Remove the password and attach it again.');
        expect(r.notice).toMatchObject({ title: 'Error adding file', text: `${name}: This file is password-protected. Remove the password and attach it again.` });
      }
      expect(sent).not.toHaveBeenCalled();
    } finally {
      sent.mockRestore();
      fake.read = async (blob) => ({ text: await blob.text() });
    }
  });

  it('a password-protected XLSX, PPTX, PPT or RAR the gateway refuses: its message as it is', async () => {
    const engine = newEngine();
    for (const name of ['protected.xlsx', 'protected.pptx', 'protected.ppt', 'protected.rar']) {
      await added(engine, name, new Blob([readFileSync(join(CORPUS, 'protected', name))]));
      const r = await failure(engine, name);
      expect(r.error).toBe('This file is password-protected. Remove the password and attach it again.');
      expect(r.notice?.text).toBe(`${name}: This file is password-protected. Remove the password and attach it again.`);
    }
  });
  it("a .doc the gateway cannot read: 'Unable to process .doc file…', and the failure is reported (unsupported-filetypes)", async () => {
    const engine = newEngine();
    const reported = vi.spyOn(attachmentCalls, 'reportUnsupported');
    try {
      const garbage = new Blob([new Uint8Array(600).fill(7)]);
      await added(engine, 'old.doc', garbage);
      const r = await failure(engine, 'old.doc');
      expect(r.error).toBe('Unable to process .doc file. This file type requires server-side processing, which failed.');
      expect(r.notice).toMatchObject({ title: 'Error adding file', text: 'old.doc: Unable to process .doc file. This file type requires server-side processing, which failed.', tone: 'red' });
      expect(reported).toHaveBeenCalledWith('doc', 600);
    } finally {
      reported.mockRestore();
    }
  });

  it("'Server-side processing is not available. This file type requires server processing.' when the gateway cannot read it and knows no job", async () => {
    const engine = newEngine();
    const post = vi.spyOn(attachmentCalls, 'processDocument').mockRejectedValue(new TypeError('fetch failed'));
    const status = vi.spyOn(attachmentCalls, 'documentStatus').mockResolvedValue({ state: 'unknown' });
    try {
      await added(engine, 'deck.pptx', new Blob([makePptx(['x']) as BlobPart]));
      const r = await failure(engine, 'deck.pptx');
      expect(r.error).toBe('Server-side processing is not available. This file type requires server processing.');
      expect(r.notice?.text).toBe('deck.pptx: Server-side processing is not available. This file type requires server processing.');
      expect(post).toHaveBeenCalledTimes(1);
      expect(status).toHaveBeenCalled();
    } finally {
      post.mockRestore();
      status.mockRestore();
    }
  });

  it("a PDF the browser cannot read: 'Analysis failed'", async () => {
    const engine = newEngine();
    fake.read = () => Promise.reject(new Error('Invalid PDF structure'));
    try {
      await added(engine, 'scan.pdf', new Blob(['%PDF-1.4 broken']));
      const r = await failure(engine, 'scan.pdf');
      expect(r.error).toBe('Analysis failed');
      expect(r.notice).toMatchObject({ title: 'Error adding file', text: 'scan.pdf: Analysis failed' });
    } finally {
      fake.read = async (blob) => ({ text: await blob.text() });
    }
  });
});

describe('image compression preference (spec 001 section 5)', () => {
  it('on by default; switched off, an image over 3.5 MB is refused with the spec message', async () => {
    const engine = newEngine();
    expect((await firstValueFrom(engine.observe({ kind: 'preferences' }))).imageCompressionEnabled).toBe(true);
    await engine.setPreferences({ imageCompressionEnabled: false });
    fake.enabledSeen.length = 0;
    await added(engine, 'huge.png', png(4 * 1024 * 1024));
    const page = await settled(engine, 'huge.png');
    expect(fake.enabledSeen).toEqual([false]);
    expect(page.items[0]).toMatchObject({ status: 'error', error: 'File size (4.00 MB) exceeds the 3.5MB limit. Please choose a smaller image or enable compression.' });
    const shown = await first(notices(engine), (n) => n.some((x) => x.title === 'Error adding image'));
    expect(shown.find((x) => x.title === 'Error adding image')?.text).toBe('huge.png: File size (4.00 MB) exceeds the 3.5MB limit. Please choose a smaller image or enable compression.');
  });
});

describe("the 'Compressing Image' notice with two images at once", () => {
  it('stays until the last compression ends, whichever finishes first', async () => {
    const engine = newEngine();
    const release = new Map<string, () => void>();
    fake.prepareImage = (blob, name, _enabled, onCompressing) => {
      onCompressing();
      return new Promise<ImageValidation>((resolve) => {
        release.set(name, () => resolve({ isValid: true, wasCompressed: true, error: null, file: { blob, mimeType: 'image/jpeg', wasCompressed: true, originalSize: blob.size, finalSize: 1000, iterations: 3 } }));
      });
    };
    try {
      const compressing = (n: Notice[]) => n.filter((x) => x.title === 'Compressing Image');
      await added(engine, 'first.png', png(3_700_000));
      await added(engine, 'second.png', png(3_800_000));
      await vi.waitFor(() => expect(release.size).toBe(2));
      expect(compressing(await firstValueFrom(notices(engine)))).toHaveLength(1);
      // The later one finishes first: the earlier one is still compressing, so the notice stays.
      release.get('second.png')?.();
      await first(library(engine), (p) => p.items.find((i) => i.name === 'second.png')?.status === 'completed');
      expect(compressing(await firstValueFrom(notices(engine)))).toHaveLength(1);
      release.get('first.png')?.();
      await first(library(engine), (p) => p.items.find((i) => i.name === 'first.png')?.status === 'completed');
      const after = await first(notices(engine), (n) => compressing(n).length === 0);
      expect(after.some((x) => x.title === 'Image Compressed Successfully')).toBe(true);
    } finally {
      fake.prepareImage = null;
    }
  });
});

describe('a GIF is an image the upload does not take (spec 000 section 5: jpg, jpeg, png, webp, bmp, tiff, tif)', () => {
  it("is refused as 'Unsupported image format', never read as a document, typed or not", async () => {
    const engine = newEngine();
    const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0, 0x3b]);
    const refused = { ok: false, title: 'Unsupported image format', error: 'Supported image formats: JPG, PNG, WEBP, BMP, TIFF.' };
    expect(await engine.addFile({ name: 'anim.gif', file: new Blob([gif], { type: 'image/gif' }), slug: null })).toEqual(refused);
    expect(await engine.addFile({ name: 'ANIM.GIF', file: new Blob([gif]), slug: null })).toEqual(refused);
    expect((await firstValueFrom(library(engine))).total).toBe(0);
  });
});

describe('the image description request the engine sends (spec 000 sections 7 and 9)', () => {
  it('model, prompt, image, detail and the session, with the conversation in transactionDetails; an image over the limit is not sent', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    await engine.refreshSession();
    const sessionId = engine.session$.value.session?.id;
    expect(sessionId).toBeTruthy();
    const now = Date.now();
    const png1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const image: LibraryRow = { id: 801, createdAt: now, lastModified: now, fileId: 901, name: 'dot.png', content: [], processingTime: 0, type: 'image', status: 'completed', order: 1, mimeType: 'image/png', sizeBytes: png1.length };
    const legacy: LibraryRow = { ...image, id: 802, fileId: 902, name: 'old-inline.png', sizeBytes: 3_670_017 };
    await engine.db.files.put({ id: 901, file: new Blob([png1], { type: 'image/png' }) });
    await engine.db.files.put({ id: 902, file: new Blob([png1], { type: 'image/png' }) });
    await engine.append([makeEvent('library.itemAdded', { item: image }, 'd1', now), makeEvent('library.itemAdded', { item: legacy }, 'd2', now)]);
    const sent = vi.spyOn(attachmentCalls, 'describeImage');
    try {
      const model = { id: 'fake-model', name: 'Fake', modality: 'text' as const, provider: 'fake', pricing: { input: '0', output: '0' }, capabilities: ['chat'], free: true, offline: false };
      const r = await attachmentsForSubmit(engine, { libraryIds: [801, 802], prompt: 'What is this?', models: [model], budgetChars: 10_000, conversationUUID: 'conv-1' });
      expect(sent).toHaveBeenCalledTimes(1);
      expect(sent.mock.calls[0]?.[0]).toEqual({
        model: 'google/gemini-2.0-flash-001',
        prompt: 'Describe this image in detail, including any text it contains, so that someone who cannot see it understands it fully.',
        image: `data:image/png;base64,${png1.toString('base64')}`,
        detail: 'detailed',
        session: sessionId,
        transactionDetails: { conversationUUID: 'conv-1', method: 'image-description' },
      });
      // The gateway took it (the session is the cookie's); the one over the limit is '[Image could not be described]'.
      expect(r.ok && r.files.map((f) => [f.name, f.text?.startsWith('Image: a PNG image') ? 'described' : f.text])).toEqual([
        ['dot.png', 'described'],
        ['old-inline.png', '[Image could not be described]'],
      ]);
    } finally {
      sent.mockRestore();
    }
  });
});
