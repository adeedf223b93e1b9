/** Shared inputs of the export tests: a conversation with a branch, and the PDF faces read from the package. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ExportMessageSource, ExportSource } from '../../../src/worker/rooms/export/model';
import type { PdfFonts } from '../../../src/worker/rooms/export/pdf';

const require = createRequire(import.meta.url);
const ttf = (name: string) => readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${name}.ttf`));
export const fonts: PdfFonts = { body: ttf('DejaVuSans'), bold: ttf('DejaVuSans-Bold'), mono: ttf('DejaVuSansMono') };
/** The same faces with Noto Sans SC, as the browser loads them for a conversation with CJK text. */
export const fontsWithCjk: PdfFonts = {
  ...fonts,
  cjk: readFileSync(require.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf')),
};

export const T0 = Date.UTC(2026, 10, 23, 19, 53, 0);

export function message(over: Partial<ExportMessageSource> & Pick<ExportMessageSource, 'id' | 'role' | 'prompt'>): ExportMessageSource {
  return { timestamp: T0 + over.id * 60_000, model: 'gpt-test', parentMessageId: null, isActiveBranch: true, ...over };
}

export const RICH_TEXT = [
  'Latin: naïve café, Greek: Καλημέρα κόσμε, Cyrillic: Привет, мир.',
  '',
  '```python',
  'def square(x):',
  '    return x * x',
  '```',
  '',
  '| Symbol | Meaning |',
  '| --- | --- |',
  '| α | alpha |',
  '| ж | zhe |',
  '',
  'Inline math $e^{i\\pi} + 1 = 0$ and display:',
  '',
  '$$',
  '\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}',
  '$$',
].join('\n');

/** user 1 -> assistant 2 (an inactive alternative) with a reply under it, assistant 3 (active) -> user 5. */
export function branchedSource(): ExportSource {
  return {
    conversation: { name: 'Physics notes', slug: 'physics-notes' },
    exportedAt: T0 + 3_600_000,
    messages: [
      message({ id: 1, role: 'user', prompt: 'Explain Euler', model: 'gpt-test' }),
      message({ id: 2, role: 'assistant', prompt: 'Old answer', parentMessageId: 1, isActiveBranch: false, outputTokens: 3 }),
      message({ id: 4, role: 'user', prompt: 'Follow-up on the old answer', parentMessageId: 2 }),
      message({ id: 3, role: 'assistant', prompt: RICH_TEXT, parentMessageId: 1, isActiveBranch: true, outputTokens: 42, inputTokens: 7 }),
      message({ id: 5, role: 'user', prompt: [{ type: 'text', text: 'And this picture?' }, { type: 'image_url', image_url: { url: 'https://example.com/p.png' } }], parentMessageId: 3 }),
    ],
  };
}
