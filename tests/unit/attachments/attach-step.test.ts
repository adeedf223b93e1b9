import { describe, expect, it } from 'vitest';
import type { LibraryRow } from '../../../src/events/model';
import type { Notice } from '../../../src/protocol/engine';
import { isVisionModel } from '../../../src/protocol/vision';
import { promptTokens } from '../../../src/shared/tokens';
import { buildAttachedPrompt, documentFile, filesContext } from '../../../src/shared/attach-step';
import { toChatMessage } from '../../../src/shared/history';
import type { MessageRow } from '../../../src/events/model';

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

const userRow = (prompt: MessageRow['prompt'], files: MessageRow['files']): MessageRow => ({ id: 1, conversationSlug: 's', timestamp: 1, role: 'user', prompt, model: 'm', status: 'done', parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: 1, files });

describe('the attachment step', () => {
  it('a vision model gets the image inline, counted 85 tokens', async () => {
    const { out } = run({ vision: true, items: [{ row: row({ id: 7, type: 'image', name: 'cat.png', mimeType: 'image/png', sizeBytes: 4 }), blob: pngBlob }] });
    const r = await out;
    expect(r.libraryIds).toEqual([7]);
    expect(r.prompt).toEqual([{ type: 'text', text: 'What is in these?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } }]);
    expect(promptTokens(r.prompt as never) - promptTokens('What is in these?')).toBe(85);
    // The chip, and nothing added to the text.
    expect(r.files).toEqual([{ libraryId: 7, name: 'cat.png', type: 'image', sizeBytes: 4, thumbId: 2 }]);
    expect(filesContext(r.files)).toBe('');
  });

  it('another model gets the description appended to the prompt, and no image', async () => {
    const seen: string[] = [];
    const { out } = run({ items: [{ row: row({ type: 'image', name: 'cat.png', mimeType: 'image/png' }), blob: pngBlob }], describe: async (url) => (seen.push(url), 'A grey cat on a sofa.') });
    const r = await out;
    expect(r.prompt).toBe('What is in these?');
    expect(seen).toEqual(['data:image/png;base64,iVBORw==']);
    // What the model reads: the prompt, then the description under the image's name.
    expect(toChatMessage(userRow(r.prompt, r.files)).content).toBe('What is in these?\n\n---\n\n[Image: cat.png]\nA grey cat on a sofa.');
  });

  it("a failed description becomes '[Image could not be described]' with its notice", async () => {
    const { out, notices } = run({ items: [{ row: row({ type: 'image', name: 'x.png' }), blob: pngBlob }], describe: async () => { throw new Error('502'); } });
    expect(filesContext((await out).files)).toBe('[Image: x.png]\n[Image could not be described]');
    expect(notices.map((n) => n.title)).toEqual(['Failed to get image description']);
  });

  it("images that cannot be read at all: 'Error processing images', sent without descriptions", async () => {
    const broken = { arrayBuffer: () => Promise.reject(new Error('gone')) } as unknown as Blob;
    const { out, notices } = run({ items: [{ row: row({ type: 'image', name: 'x.png' }), blob: broken }] });
    const r = await out;
    expect(r.prompt).toBe('What is in these?');
    expect(filesContext(r.files)).toBe('');
    expect(notices.map((n) => n.title)).toEqual(['Error processing images']);
  });

  it('documents go in with their name; one too long is cut with a visible note', async () => {
    const { out } = run({ budgetChars: 60, items: [{ row: row({ name: 'a.txt', content: ['short text'] }), blob: null }, { row: row({ id: 2, name: 'big.pdf', content: ['x'.repeat(100)] }), blob: null }] });
    const r = await out;
    // a.txt takes 10 characters and 15 of header; big.pdf gets the 60 - 25 left, less its own 17 of header.
    expect(filesContext(r.files)).toBe(`[File: a.txt]\nshort text\n\n[File: big.pdf]\n${'x'.repeat(18)}\n[Note: only the first 18 of 100 characters of big.pdf (18%) fit the model's context; the rest was left out.]`);
    expect(r.files[1]?.note).toBe("[Note: only the first 18 of 100 characters of big.pdf (18%) fit the model's context; the rest was left out.]");
    expect(r.cut).toEqual([{ name: 'big.pdf', used: 18, total: 100 }]);
  });

  it('an inline image takes its 85 tokens from the documents\' share', async () => {
    const { out } = run({ vision: true, budgetChars: 85 * 4 + 40, items: [{ row: row({ id: 7, type: 'image', name: 'c.png' }), blob: pngBlob }, { row: row({ id: 2, name: 'big.txt', content: ['y'.repeat(100)] }), blob: null }] });
    expect((await out).cut).toEqual([{ name: 'big.txt', used: 23, total: 100 }]);
  });

  it('items not ready or failed are not sent', async () => {
    const { out } = run({ items: [{ row: row({ status: 'processing', content: ['x'] }), blob: null }, { row: row({ id: 3, status: 'error' }), blob: null }] });
    expect(await out).toEqual({ prompt: 'What is in these?', files: [], libraryIds: [], cut: [] });
  });

  it('documentFile keeps a text that fits whole', () => {
    expect(documentFile(row({ name: 'n.md', sizeBytes: 3 }), 'abc', 3)).toEqual({ file: { libraryId: 1, name: 'n.md', type: 'file', sizeBytes: 3, text: 'abc' }, cut: null });
  });
});
