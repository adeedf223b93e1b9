/**
 * Export through the real UI in Chromium: a conversation with Latin, Greek and Cyrillic text, a code block, a
 * table and math, saved as Markdown, JSON and PDF (the browser's download event), and every conversation as a zip
 * from Settings. The PDF is read back with pdf.js in Node: letter pages and the text, every character present.
 */
import { readFile } from 'node:fs/promises';
import { strFromU8, unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();

const PROMPT = 'Γειά σου κόσμε, Привет мир: show me squares';
const REPLY = [
  'Here is café code, Ελληνικά and Русский:',
  '',
  '```python',
  'def square(x):',
  '    return x * x',
  '```',
  '',
  '| n | n² |',
  '| --- | --- |',
  '| 2 | 4 |',
  '| 3 | 9 |',
  '',
  'So $n^2 = n \\cdot n$ and',
  '',
  '$$',
  '\\sum_{k=1}^{n} (2k-1) = n^2',
  '$$',
].join('\n');

async function download(page: Page, format: 'Markdown' | 'JSON' | 'PDF'): Promise<{ name: string; bytes: Buffer }> {
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: format }).click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), bytes: await readFile(path) };
}

async function pdfText(bytes: Buffer): Promise<{ sizes: number[][]; text: string }> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), disableFontFace: true }).promise;
  const sizes: number[][] = [];
  let text = '';
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    sizes.push(page.view);
    const content = await page.getTextContent();
    text += content.items.map((i) => ('str' in i ? i.str : '')).join('');
  }
  await pdf.destroy();
  return { sizes, text };
}

const squash = (s: string) => s.replace(/\s+/g, '');

async function conversationWithReply(page: Page): Promise<void> {
  await chooseModel(page, FREE_MODEL);
  await send(page, PROMPT);
  await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
  await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/conversation\/.+/);
}

describe('export, end to end in Chromium', () => {
  it('saves the conversation as Markdown, JSON and PDF from the header menu', async () => {
    getStack().upstream.setScript(textReply(REPLY, { usage: { prompt_tokens: 11, completion_tokens: 40 } }));
    const context = await getStack().newContext();
    // The PDF is laid out in a dedicated worker of its own, beside the engine.
    const workerScripts: string[] = [];
    const fonts: string[] = [];
    context.on('request', (r) => {
      // The page's requests, once each: the service worker's own fetch of the same file (behind the page's) is not counted.
      if (r.serviceWorker() !== null) return;
      if (/\/assets\/pdf-worker-[^/]+\.js$/.test(new URL(r.url()).pathname)) workerScripts.push(r.url());
      if (r.url().endsWith('.ttf')) fonts.push(new URL(r.url()).pathname);
    });
    const page = await openApp(context);
    await conversationWithReply(page);
    const title = await page.getByRole('heading', { level: 1 }).textContent();
    expect(title).toBeTruthy();

    const md = await download(page, 'Markdown');
    expect(md.name).toMatch(/\.md$/);
    const markdown = md.bytes.toString('utf8');
    expect(markdown.startsWith(`# ${title}\n`)).toBe(true);
    expect(markdown).toContain(PROMPT);
    expect(markdown).toContain(REPLY);
    expect(markdown).toMatch(/### Assistant · fake-model · \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

    const json = await download(page, 'JSON');
    expect(json.name).toMatch(/\.json$/);
    const doc = JSON.parse(json.bytes.toString('utf8'));
    expect(doc.name).toBe(title);
    expect(doc.messages.map((m: { role: string; prompt: string }) => [m.role, m.prompt])).toEqual([['user', PROMPT], ['assistant', REPLY]]);
    for (const m of doc.messages) expect(Object.keys(m).sort()).toEqual(['completion', 'images', 'model', 'prompt', 'role', 'timestamp']);
    expect(doc.messages[0].completion).toBeNull();
    expect(doc.messages[1]).toMatchObject({ model: FREE_MODEL, images: [], completion: { inputTokens: 11, outputTokens: 40 } });

    const pdf = await download(page, 'PDF');
    expect(pdf.name).toMatch(/\.pdf$/);
    expect(workerScripts).toHaveLength(1);
    // The three DejaVu faces, from this origin; not the 10 MB CJK face: this conversation has no CJK text.
    expect(fonts.map((f) => f.replace(/-[\w-]{8}\.ttf$/, '.ttf')).sort()).toEqual(['/assets/DejaVuSans-Bold.ttf', '/assets/DejaVuSans.ttf', '/assets/DejaVuSansMono.ttf']);
    const { sizes, text } = await pdfText(pdf.bytes);
    expect(sizes.length).toBeGreaterThan(0);
    for (const s of sizes) expect(s).toEqual([0, 0, 612, 792]);
    // Every character of the test text came out as itself: none fell back to U+FFFD or a missing glyph.
    expect(text).not.toContain('\uFFFD');
    // Math is typeset as text (src/worker/rooms/export/math-text.ts): symbols, not the TeX it was written in.
    for (const piece of [title ?? '', PROMPT, 'Here is café code, Ελληνικά and Русский:', 'def square(x):', 'return x * x', 'n²', 'n² = n⋅n', '∑ₖ₌₁ⁿ(2k−1) = n²']) {
      expect(squash(text)).toContain(squash(piece));
    }
    for (const tex of ['$n^2', '\\cdot', '\\sum_{k=1}']) expect(text).not.toContain(tex);
  });

  it('draws Chinese and Japanese with the CJK face, fetched from this origin only for such a conversation', async () => {
    const cjk = '中文回答：你好，世界。日本語：ひらがな、カタカナ。';
    getStack().upstream.setScript(textReply(`${cjk}\n\n| 列 | 值 |\n| - | - |\n| α | 一 |`, { usage: { prompt_tokens: 3, completion_tokens: 9 } }));
    const context = await getStack().newContext();
    const fonts: string[] = [];
    context.on('response', (r) => {
      if (r.url().endsWith('.ttf')) fonts.push(`${new URL(r.url()).origin} ${new URL(r.url()).pathname} ${r.status()}`);
    });
    const page = await openApp(context);
    await chooseModel(page, FREE_MODEL);
    await send(page, '请用中文回答');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/conversation\/.+/);
    const { text } = await pdfText((await download(page, 'PDF')).bytes);
    expect(text).not.toContain('\uFFFD');
    for (const piece of ['请用中文回答', cjk, '列值', 'α一']) expect(squash(text)).toContain(squash(piece));
    const origin = new URL(getStack().url).origin;
    expect(fonts.some((f) => /\/assets\/NotoSansSC_400Regular-[\w-]{8}\.ttf 200$/.test(f))).toBe(true);
    for (const f of fonts) expect(f.startsWith(`${origin} /assets/`)).toBe(true);
  });

  it('works without SharedWorker too (bytes cross the BroadcastChannel bridge)', async () => {
    getStack().upstream.setScript(textReply('Short answer: Ωμέγα.', { usage: { prompt_tokens: 3, completion_tokens: 4 } }));
    const page = await openApp(await getStack().newContext({ withoutSharedWorker: true }));
    await conversationWithReply(page);
    const { sizes, text } = await pdfText((await download(page, 'PDF')).bytes);
    expect(sizes[0]).toEqual([0, 0, 612, 792]);
    expect(text).toContain('Short answer: Ωμέγα.');
  });

  it('refuses a conversation with no name and messages, with the spec notice', async () => {
    const page = await openApp(await getStack().newContext());
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Markdown' }).click();
    await page.getByRole('status').filter({ hasText: 'Exporting needs a named conversation with messages' }).waitFor();
  });

  it('exports every conversation at once as one zip from Settings', async () => {
    getStack().upstream.setScript(textReply('First reply.'));
    const page = await openApp(await getStack().newContext());
    await conversationWithReply(page);
    await page.goto('/conversation/new');
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    getStack().upstream.setScript(textReply('Second reply.'));
    await send(page, 'Another topic entirely');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    await page.goto('/settings/data');
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export all conversations' }).click()]);
    expect(file.suggestedFilename()).toMatch(/^parley-conversations-\d{4}-\d\d-\d\d\.zip$/);
    const files = unzipSync(new Uint8Array(await readFile(await file.path())));
    const index = JSON.parse(strFromU8(files['index.json']!));
    expect(index.conversations).toHaveLength(2);
    const replies = index.conversations.map((c: { json: string }) => JSON.parse(strFromU8(files[c.json]!)).messages[1].prompt).sort();
    expect(replies).toEqual(['First reply.', 'Second reply.']);
    for (const c of index.conversations) expect(strFromU8(files[c.markdown]!)).toContain(`# `);
  });
});
