import { describe, expect, it } from 'vitest';
import type { LibraryRow } from '../../../src/events/model';
import type { Notice } from '../../../src/protocol/engine';
import { isVisionModel } from '../../../src/protocol/vision';
import { promptTokens } from '../../../src/worker/services/tokens';
import { buildAttachedPrompt, documentBlock } from '../../../src/worker/services/library/attach-step';

const row = (over: Partial<LibraryRow>): LibraryRow => ({ id: 1, createdAt: 1, lastModified: 1, fileId: 2, name: 'a.txt', content: [], processingTime: 0, type: 'file', status: 'completed', order: 1, ...over });
const pngBlob = new Blob([Uint8Array.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });

function run(over: Partial<Parameters<typeof buildAttachedPrompt>[0]>) {
  const notices: Omit<Notice, 'id'>[] = [];
  const out = buildAttachedPrompt({ prompt: 'What is in these?', items: [], vision: false, budgetChars: 10_000, describe: async () => 'A cat.', notify: (n) => notices.push(n), ...over });
  return { out, notices };
}

describe('vision whitelist (spec 001 section 5)', () => {
  it('takes known vision families and excludes the o3-mini variants', () => {
    for (const id of ['gpt-4o', 'openai/gpt-4o-mini', 'gpt-4.1', 'claude-3-5-sonnet', 'google/gemini-2.0-flash-001', 'o3', 'llava:13b', 'gpt-4o:online']) expect(isVisionModel(id)).toBe(true);
    for (const id of ['o3-mini', 'o3-mini-high', 'openai/o3-mini-2025-01-31', 'gpt-3.5-turbo', 'parley-offline', 'fake-model', 'o1-mini']) expect(isVisionModel(id)).toBe(false);
  });
});

describe('the attachment step', () => {
  it('a vision model gets the image inline, counted 85 tokens', async () => {
    const { out } = run({ vision: true, items: [{ row: row({ id: 7, type: 'image', name: 'cat.png', mimeType: 'image/png' }), blob: pngBlob }] });
    const r = await out;
    expect(r.libraryIds).toEqual([7]);
    expect(r.prompt).toEqual([{ type: 'text', text: 'What is in these?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } }]);
    expect(promptTokens(r.prompt as never) - promptTokens('What is in these?')).toBe(85);
  });

  it('another model gets the description appended and no image', async () => {
    const seen: string[] = [];
    const { out } = run({ items: [{ row: row({ type: 'image', name: 'cat.png', mimeType: 'image/png' }), blob: pngBlob }], describe: async (url) => (seen.push(url), 'A grey cat on a sofa.') });
    expect((await out).prompt).toBe('What is in these?\n\n[Image: cat.png]\nA grey cat on a sofa.');
    expect(seen).toEqual(['data:image/png;base64,iVBORw==']);
  });

  it("a failed description becomes '[Image could not be described]' with its notice", async () => {
    const { out, notices } = run({ items: [{ row: row({ type: 'image', name: 'x.png' }), blob: pngBlob }], describe: async () => { throw new Error('502'); } });
    expect((await out).prompt).toBe('What is in these?\n\n[Image: x.png]\n[Image could not be described]');
    expect(notices.map((n) => n.title)).toEqual(['Failed to get image description']);
  });

  it("images that cannot be read at all: 'Error processing images', sent without descriptions", async () => {
    const broken = { arrayBuffer: () => Promise.reject(new Error('gone')) } as unknown as Blob;
    const { out, notices } = run({ items: [{ row: row({ type: 'image', name: 'x.png' }), blob: broken }] });
    expect((await out).prompt).toBe('What is in these?');
    expect(notices.map((n) => n.title)).toEqual(['Error processing images']);
  });

  it('documents go in with their name; one too long is cut with a visible note', async () => {
    const { out } = run({ budgetChars: 30, items: [{ row: row({ name: 'a.txt', content: ['short text'] }), blob: null }, { row: row({ id: 2, name: 'big.pdf', content: ['x'.repeat(100)] }), blob: null }] });
    const r = await out;
    expect(r.prompt).toBe(`What is in these?\n\n[File: a.txt]\nshort text\n\n[File: big.pdf]\n${'x'.repeat(20)}\n[Note: only the first 20 of 100 characters of big.pdf (20%) fit the model's context; the rest was left out.]`);
    expect(r.cut).toEqual([{ name: 'big.pdf', used: 20, total: 100 }]);
  });

  it('items not ready or failed are not sent', async () => {
    const { out } = run({ items: [{ row: row({ status: 'processing', content: ['x'] }), blob: null }, { row: row({ id: 3, status: 'error' }), blob: null }] });
    expect(await out).toEqual({ prompt: 'What is in these?', libraryIds: [], cut: [] });
  });

  it('documentBlock keeps a text that fits whole', () => {
    expect(documentBlock('n.md', 'abc', 3)).toEqual({ text: '[File: n.md]\nabc', cut: null });
  });
});
