import { describe, expect, it } from 'vitest';
import { unzipSync, strFromU8 } from 'fflate';
import { EXPORT_NOTICE } from '../../../src/shared/messages';
import { toArchive, archiveFileName } from '../../../src/worker/rooms/export/archive';
import { toExportedConversation, toJson } from '../../../src/worker/rooms/export/json';
import { toMarkdown } from '../../../src/worker/rooms/export/markdown';
import { activeBranch, checkExportable, exportFileName, type ExportSource } from '../../../src/worker/rooms/export/model';
import { branchedSource, message, RICH_TEXT, T0 } from './fixtures';

function checked(source: ExportSource): ExportSource {
  const c = checkExportable(source);
  if (!c.ok) throw new Error(c.error);
  return c.source;
}

describe('active branch', () => {
  it('drops an inactive alternative and everything under it, keeping order', () => {
    expect(activeBranch(branchedSource().messages).map((m) => m.id)).toEqual([1, 3, 5]);
  });
});

describe('the spec rule: a named conversation with messages', () => {
  it('refuses an unnamed conversation', () => {
    const s = { ...branchedSource(), conversation: { name: '   ', slug: 'x' } };
    expect(checkExportable(s)).toEqual({ ok: false, error: 'Exporting needs a named conversation with messages' });
  });
  it('refuses a conversation without messages, or whose only messages are off the active branch', () => {
    const s = branchedSource();
    expect(checkExportable({ ...s, messages: [] })).toEqual({ ok: false, error: EXPORT_NOTICE.needsNamedConversation });
    const offPath = [message({ id: 9, role: 'assistant', prompt: 'x', isActiveBranch: false })];
    expect(checkExportable({ ...s, messages: offPath }).ok).toBe(false);
  });
});

describe('JSON export', () => {
  it('writes the spec exported message shape for the active branch only', () => {
    const doc = toExportedConversation(checked(branchedSource()));
    expect(doc).toEqual({
      name: 'Physics notes',
      slug: 'physics-notes',
      exportedAt: '2026-11-23T20:53:00.000Z',
      messages: [
        { role: 'user', timestamp: T0 + 60_000, prompt: 'Explain Euler', images: [], completion: null, model: 'gpt-test' },
        { role: 'assistant', timestamp: T0 + 180_000, prompt: RICH_TEXT, images: [], completion: { inputTokens: 7, outputTokens: 42 }, model: 'gpt-test' },
        { role: 'user', timestamp: T0 + 300_000, prompt: 'And this picture?', images: [{ url: 'https://example.com/p.png' }], completion: null, model: 'gpt-test' },
      ],
    });
    for (const m of doc.messages) expect(Object.keys(m).sort()).toEqual(['completion', 'images', 'model', 'prompt', 'role', 'timestamp']);
  });

  it('carries inline images as b64_json and unknown token counts as null', () => {
    const s = checked({
      ...branchedSource(),
      messages: [message({ id: 1, role: 'assistant', prompt: 'Here', images: [{ b64_json: 'iVBORw0K' }, { url: 'https://x/y.png' }, {}] })],
    });
    const [m] = JSON.parse(toJson(s)).messages;
    expect(m.images).toEqual([{ b64_json: 'iVBORw0K' }, { url: 'https://x/y.png' }]);
    expect(m.completion).toEqual({ inputTokens: null, outputTokens: null });
  });

  it('uses the live text of a streaming reply', () => {
    const s = checked({ ...branchedSource(), messages: [message({ id: 1, role: 'assistant', prompt: '', text: 'Partial rep' })] });
    expect(toExportedConversation(s).messages[0]?.prompt).toBe('Partial rep');
  });
});

describe('Markdown export', () => {
  it('has the title, a role/model/time line per message, and the text exactly as written', () => {
    const md = toMarkdown(checked(branchedSource()));
    expect(md).toBe(
      [
        '# Physics notes',
        '',
        '### User · 2026-11-23 19:54 UTC',
        '',
        'Explain Euler',
        '',
        '---',
        '',
        '### Assistant · gpt-test · 2026-11-23 19:56 UTC',
        '',
        RICH_TEXT,
        '',
        '---',
        '',
        '### User · 2026-11-23 19:58 UTC',
        '',
        'And this picture?',
        '',
        '![image](<https://example.com/p.png>)',
        '',
        '---',
        '',
      ].join('\n'),
    );
    expect(md).not.toContain('Old answer');
    expect(md).not.toContain('Follow-up on the old answer');
  });

  it('escapes Markdown in the title (it is the user words, not Markdown)', () => {
    const md = toMarkdown(checked({ ...branchedSource(), conversation: { name: '# *Not* a [link]', slug: 's' } }));
    expect(md.split('\n')[0]).toBe('# \\# \\*Not\\* a \\[link\\]');
  });
});

describe('web sources (issue 16: every format dropped them)', () => {
  const cited = (): ExportSource => ({
    conversation: { name: 'Lisbon', slug: 'lisbon' },
    exportedAt: T0,
    messages: [
      message({ id: 1, role: 'user', prompt: 'Trams in Lisbon?' }),
      message({
        id: 2,
        role: 'assistant',
        prompt: 'Tram 28 crosses the old town [1][2].',
        parentMessageId: 1,
        citations: [
          { title: 'Tram 28 guide', url: 'https://example.org/tram-28' },
          { title: '  ', url: 'https://example.org/carris' },
        ],
      }),
    ],
  });

  it('Markdown lists them under the reply, numbered as its [n]', () => {
    const md = toMarkdown(checked(cited()));
    expect(md).toContain('Sources:\n\n1. [Tram 28 guide](<https://example.org/tram-28>)\n2. [https://example.org/carris](<https://example.org/carris>)\n');
  });

  it('JSON carries them on the reply only', () => {
    const doc = toExportedConversation(checked(cited()));
    expect(doc.messages[0]).not.toHaveProperty('sources');
    expect(doc.messages[1]?.sources).toEqual([
      { title: 'Tram 28 guide', url: 'https://example.org/tram-28' },
      { title: 'https://example.org/carris', url: 'https://example.org/carris' },
    ]);
  });
});

describe('a turn Auto chose the model of (spec 000 section 3: isAutoModel, autoModelSelectedModel)', () => {
  const auto = (): ExportSource => ({
    conversation: { name: 'Auto turn', slug: 'auto-turn' },
    exportedAt: T0,
    messages: [
      message({ id: 1, role: 'user', prompt: 'Pick for me', model: 'cheap-model', isAutoModel: true, autoModelSelectedModel: 'cheap-model' }),
      message({ id: 2, role: 'assistant', prompt: 'Picked.', parentMessageId: 1, model: 'cheap-model', isAutoModel: true, autoModelSelectedModel: 'cheap-model' }),
      message({ id: 3, role: 'user', prompt: 'And you?', parentMessageId: 2, model: 'gpt-test' }),
      message({ id: 4, role: 'assistant', prompt: 'Chosen by hand.', parentMessageId: 3, model: 'gpt-test' }),
    ],
  });

  it('Markdown heads the reply "Assistant · Auto · <model>"; a reply of a chosen model keeps its plain line', () => {
    const md = toMarkdown(checked(auto()));
    expect(md).toContain('### Assistant · Auto · cheap-model · 2026-11-23 19:55 UTC');
    expect(md).toContain('### Assistant · gpt-test · ');
    expect(md).not.toContain('Auto · gpt-test');
  });

  it('JSON carries isAutoModel and autoModelSelectedModel on the Auto turn only', () => {
    const doc = toExportedConversation(checked(auto()));
    expect(doc.messages.map((m) => [m.role, m.model, m.isAutoModel, m.autoModelSelectedModel])).toEqual([
      ['user', 'cheap-model', true, 'cheap-model'],
      ['assistant', 'cheap-model', true, 'cheap-model'],
      ['user', 'gpt-test', undefined, undefined],
      ['assistant', 'gpt-test', undefined, undefined],
    ]);
    expect(doc.messages[3]).not.toHaveProperty('isAutoModel');
  });
});

describe('file names', () => {
  it('come from the name, any script kept, else the slug', () => {
    const s = branchedSource();
    expect(exportFileName(s, 'pdf')).toBe('Physics-notes.pdf');
    expect(exportFileName({ ...s, conversation: { name: 'Привет, мир!', slug: 'x' } }, 'markdown')).toBe('Привет-мир.md');
    expect(exportFileName({ ...s, conversation: { name: '???', slug: 'abc' } }, 'json')).toBe('abc.json');
  });
});

describe('archive of many conversations', () => {
  it('is a zip with each conversation as .md and .json, and an index', () => {
    const a = checked(branchedSource());
    const b = checked({ ...branchedSource(), conversation: { name: 'Physics notes', slug: 'second' } });
    const files = unzipSync(toArchive([a, b], T0));
    expect(Object.keys(files).sort()).toEqual(['Physics-notes-second.json', 'Physics-notes-second.md', 'Physics-notes.json', 'Physics-notes.md', 'index.json']);
    expect(strFromU8(files['Physics-notes.md']!)).toBe(toMarkdown(a));
    expect(JSON.parse(strFromU8(files['Physics-notes-second.json']!)).slug).toBe('second');
    const index = JSON.parse(strFromU8(files['index.json']!));
    expect(index.conversations.map((c: { slug: string; messages: number }) => [c.slug, c.messages])).toEqual([['physics-notes', 3], ['second', 3]]);
    expect(archiveFileName(T0)).toBe('parley-conversations-2026-11-23.zip');
  });
});
