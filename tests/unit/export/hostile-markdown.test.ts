/**
 * Hostile Markdown in exports (issue 15): a message whose Markdown would nest thousands deep or parse slowly is
 * exported as plain text under a note, in Markdown and in PDF, and the PDF export's watchdog lays out as plain text
 * a message whose parse runs past its budget.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { toMarkdown } from '../../../src/worker/rooms/export/markdown';
import { messageBlocks } from '../../../src/worker/rooms/export/pdf-blocks';
import { toPdf } from '../../../src/worker/rooms/export/pdf';
import { pdfWithinBudget, type StartPdfBuild } from '../../../src/worker/rooms/export/pdf-budget';
import { checkExportable, type ExportSource } from '../../../src/worker/rooms/export/model';
import { unformattedNote } from '../../../src/protocol/markdown-note';
import { fonts, message, RICH_TEXT } from './fixtures';
import { HOSTILE_REPLIES } from '../ui/hostile-payloads';

function source(texts: readonly string[]): ExportSource {
  const messages = texts.flatMap((text, i) => [
    message({ id: 2 * i + 1, role: 'user', prompt: `Question ${i + 1}` }),
    message({ id: 2 * i + 2, role: 'assistant', prompt: '', text, parentMessageId: 2 * i + 1 }),
  ]);
  const c = checkExportable({ conversation: { name: 'Hostile', slug: 'hostile' }, messages, exportedAt: 0 });
  if (!c.ok) throw new Error(c.error);
  return c.source;
}

const NOTE = unformattedNote('assistant');

describe('Markdown export', () => {
  it('writes each hostile reply as plain text (an indented code block) under the note, and the others as they are', () => {
    const md = toMarkdown(source([...HOSTILE_REPLIES.map((h) => h.text), RICH_TEXT]));
    expect(md.split(`*${NOTE}*`)).toHaveLength(HOSTILE_REPLIES.length + 1);
    for (const { text } of HOSTILE_REPLIES) expect(md).toContain(text.replace(/^/gm, '    '));
    expect(md).toContain(`\n${RICH_TEXT}\n`);
    // Whatever reads the file next parses it flat and fast: the hostile replies are code to it.
    const tree = unified().use(remarkParse).parse(md);
    const code = tree.children.flatMap((c) => (c.type === 'code' ? [c.value] : []));
    expect(code).toEqual(expect.arrayContaining(HOSTILE_REPLIES.map((h) => h.text)));
  });
});

describe('PDF export', () => {
  it.each(HOSTILE_REPLIES)('$name: laid out as plain text, unparsed', ({ text }) => {
    const { blocks, plain } = messageBlocks(text);
    expect(plain).toBe(true);
    expect(blocks).toEqual([{ kind: 'text', runs: [{ text, style: 'body' }], size: expect.any(Number), indent: 0, quote: false }]);
  });

  it('parses Markdown people write', () => {
    expect(messageBlocks(RICH_TEXT).plain).toBe(false);
  });

  it('makes a PDF of a conversation with every hostile reply, each under the note', async () => {
    const bytes = toPdf(source(HOSTILE_REPLIES.map((h) => h.text)), fonts);
    const pdf = await getDocument({ data: new Uint8Array(bytes), disableFontFace: true }).promise;
    let text = '';
    for (let n = 1; n <= pdf.numPages; n++) {
      const content = await (await pdf.getPage(n)).getTextContent();
      text += content.items.map((i) => ('str' in i ? i.str : '')).join('');
    }
    await pdf.destroy();
    const squash = (s: string) => s.replace(/\s+/g, '');
    expect(squash(text).split(squash(NOTE))).toHaveLength(HOSTILE_REPLIES.length + 1);
    for (const { marker } of HOSTILE_REPLIES) expect(squash(text)).toContain(squash(marker));
  });
});

describe("the PDF export's watchdog", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  /** Fake builds: each reports its parses; the parse of a message in `hangOn` never ends unless it is plain. */
  function fakeBuilds(hangOn: ReadonlySet<number>, count: number) {
    const runs: Array<{ plain: readonly number[]; stopped: boolean }> = [];
    const start: StartPdfBuild = (_source, plain, onParse) => {
      const run = { plain, stopped: false };
      runs.push(run);
      const result = new Promise<ArrayBuffer>((resolve) => {
        let i = 0;
        const step = () => {
          if (run.stopped) return;
          if (i === count) {
            onParse(-1);
            resolve(new ArrayBuffer(8));
            return;
          }
          onParse(i);
          if (hangOn.has(i) && !plain.includes(i)) return; // stuck in this parse
          i++;
          queueMicrotask(step);
        };
        queueMicrotask(step);
      });
      return { result, stop: () => void (run.stopped = true) };
    };
    return { runs, start };
  }

  it('ends a build stuck on one message past its budget and builds again with that message plain', async () => {
    const src = source(['fine', 'stuck', 'fine too']);
    const { runs, start } = fakeBuilds(new Set([3]), src.messages.length);
    const done = pdfWithinBudget(src, start, () => 1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs[0]!.stopped).toBe(true);
    await expect(done).resolves.toBeInstanceOf(ArrayBuffer);
    expect(runs.map((r) => r.plain)).toEqual([[], [3]]);
  });

  it('builds once when every parse keeps to its budget', async () => {
    const src = source(['a', 'b']);
    const { runs, start } = fakeBuilds(new Set(), src.messages.length);
    await expect(pdfWithinBudget(src, start, () => 1000)).resolves.toBeInstanceOf(ArrayBuffer);
    expect(runs).toHaveLength(1);
  });

  it('passes a failed build on', async () => {
    const src = source(['a']);
    const start: StartPdfBuild = () => ({ result: Promise.reject(new Error('no fonts')), stop: () => undefined });
    await expect(pdfWithinBudget(src, start, () => 1000)).rejects.toThrow('no fonts');
  });
});
