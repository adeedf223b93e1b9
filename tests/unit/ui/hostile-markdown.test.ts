/**
 * Hostile Markdown (issue 15, items 2 and 10): the text guard flattens what would nest thousands deep or parse
 * slowly, the tree is cut at a sane depth, and the page's pipeline turns every payload into a shallow tree that
 * keeps its words. Markdown people write is left exactly as it is.
 */
import { describe, expect, it } from 'vitest';
import type { Nodes as MdastNodes, Root as MdastRoot } from 'mdast';
import type { Root as HastRoot, RootContent } from 'hast';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { capTreeDepth, MARKDOWN_TREE_DEPTH, plainWords } from '../../../src/protocol/markdown-depth';
import { MARKDOWN_LIMITS, tameMarkdown } from '../../../src/protocol/markdown-guard';
import { unformattedNote } from '../../../src/protocol/markdown-note';
import { fitsPageParse, markdownToHast, safeUrl } from '../../../src/ui/markdown/pipeline';
import { MATH_HTML_CLASS } from '../../../src/ui/markdown/math';
import { plainPieces } from '../../../src/ui/components/PlainText';
import { HOSTILE_REPLIES } from './hostile-payloads';

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkMath);

/** Depth of a tree, measured without recursion (the trees here may be thousands deep). */
function depth(root: { children?: unknown[] }): number {
  let deepest = 0;
  const stack: Array<[{ children?: unknown[] }, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, d] = stack.pop() as [{ children?: unknown[] }, number];
    deepest = Math.max(deepest, d);
    for (const child of node.children ?? []) stack.push([child as { children?: unknown[] }, d + 1]);
  }
  return deepest;
}

function hastText(root: HastRoot): string {
  let out = '';
  const stack: RootContent[] = [...root.children].reverse();
  while (stack.length > 0) {
    const n = stack.pop() as RootContent;
    if (n.type === 'text') out += n.value;
    else if ('children' in n) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as RootContent);
  }
  return out;
}

const NORMAL = [
  '# Plan',
  '',
  'Some **bold**, *italic*, ~~struck~~, `code`, a [link](https://example.com) and $x^2$.',
  '',
  '> A quote',
  '> > nested once',
  '',
  '- one',
  '  - two',
  '    - three',
  '      1. four',
  '',
  '| a | b |',
  '| --- | --- |',
  '| 1 | 2 |',
  '',
  '```ts',
  'const deep = [[[[[[[[[[[[1]]]]]]]]]]]];',
  '```',
  '',
  'A line to fill in: ______ and a rule:',
  '',
  '***',
  '',
  '$$',
  '\\frac{a}{b}',
  '$$',
].join('\n');

describe('the Markdown guard (text)', () => {
  it('leaves Markdown people write exactly as it is', () => {
    const t = tameMarkdown(NORMAL);
    expect(t.tamed).toBe(false);
    expect(t.text).toBe(NORMAL);
  });

  it.each(HOSTILE_REPLIES)('$name: flattened, keeping its words', ({ text, marker }) => {
    const t = tameMarkdown(text);
    expect(t.tamed).toBe(true);
    expect(t.text.replace(/\\/g, '')).toContain(marker);
    // The parser (with remark-gfm's tree walks, recursive) gets a tree of sane depth and no stack overflow.
    const tree = parser.parse(t.text);
    expect(depth(tree)).toBeLessThanOrEqual(2 * MARKDOWN_LIMITS.markersPerLine + MARKDOWN_LIMITS.indentColumns + 4);
  });

  it('keeps at most markersPerLine containers on a line and cuts indentation before a marker', () => {
    expect(tameMarkdown(`${'> '.repeat(20)}x`).text).toBe(`${'> '.repeat(MARKDOWN_LIMITS.markersPerLine)}x`);
    expect(tameMarkdown(`${'- '.repeat(20)}x`).text).toBe(`${Array(MARKDOWN_LIMITS.markersPerLine).fill('-').join(' ')} x`);
    const deep = `${' '.repeat(200)}- item`;
    expect(tameMarkdown(deep).text).toBe(`${' '.repeat(MARKDOWN_LIMITS.indentColumns)}- item`);
    // Indentation without a marker (code, a continued paragraph) is left alone.
    expect(tameMarkdown(`${' '.repeat(200)}words`).tamed).toBe(false);
  });

  it('shows a block with a run of * or _ longer than emphasisRun as written, in a fence; a thematic break is fine', () => {
    const run = '_'.repeat(MARKDOWN_LIMITS.emphasisRun + 1);
    expect(tameMarkdown(`Intro\n\na ${run}b${run}\n\nAfter *this*`).text).toBe(`Intro\n\n\`\`\`text\na ${run}b${run}\n\`\`\`\n\nAfter *this*`);
    expect(tameMarkdown('*'.repeat(100)).tamed).toBe(false);
    expect(tameMarkdown('_ _ _ _ _ _').tamed).toBe(false);
    expect(tameMarkdown(`fill in: ${'_'.repeat(MARKDOWN_LIMITS.emphasisRun)}`).tamed).toBe(false);
  });

  it('fences a block with more than delimitersPerBlock delimiters of one kind; a new bullet item starts a new block', () => {
    const n = MARKDOWN_LIMITS.delimitersPerBlock;
    const links = '[x]('.repeat(n + 1);
    expect(tameMarkdown(links).text).toBe(`\`\`\`text\n${links}\n\`\`\``);
    // A numbered item or a quote line may continue a paragraph: they do not start a new block.
    expect(tameMarkdown(Array.from({ length: n + 1 }, () => '2. [a]').join('\n')).tamed).toBe(true);
    // A bullet item always starts a paragraph: 300 bullet items with bold and a link each are fine.
    expect(tameMarkdown(Array.from({ length: 300 }, (_, i) => `- **Term ${i}**: see [doc](https://x/${i})`).join('\n')).tamed).toBe(false);
  });

  it('makes the fence longer than any backtick run inside, so nothing inside closes it', () => {
    const text = `${'`a'.repeat(MARKDOWN_LIMITS.delimitersPerBlock + 1)}\nb \`\`\`\`\`\` c`;
    const t = tameMarkdown(text);
    expect(t.text.startsWith('```````text\n')).toBe(true);
    const tree = parser.parse(t.text);
    expect(tree.children.map((c) => c.type)).toEqual(['code']);
  });

  it('fences a line with more than pipesPerLine table pipes', () => {
    const t = tameMarkdown('|a'.repeat(MARKDOWN_LIMITS.pipesPerLine + 1));
    expect(t.tamed).toBe(true);
    expect(parser.parse(t.text).children.map((c) => c.type)).toEqual(['code']);
  });

  it('leaves the lines of a fence in the first column alone, but a fence inside a list shields nothing', () => {
    const fenced = `\`\`\`\n${'> '.repeat(50)}x\n\`\`\``;
    expect(tameMarkdown(fenced).tamed).toBe(false);
    // The list item ends at "x", and with it its fence: the hostile line after it is a hostile line.
    const trick = `- a\n  \`\`\`\nx\n${'- '.repeat(3000)}y`;
    const t = tameMarkdown(trick);
    expect(t.tamed).toBe(true);
    expect(depth(parser.parse(t.text))).toBeLessThan(40);
  });

  it('says which texts are small and plain enough to parse on the page', () => {
    expect(fitsPageParse('Hello **there**, see `x`.')).toBe(true);
    expect(fitsPageParse('word '.repeat(1000))).toBe(false);
    for (const { text } of HOSTILE_REPLIES) expect(fitsPageParse(text)).toBe(false);
    expect(fitsPageParse('a\n=\n'.repeat(50))).toBe(false);
  });

  it('names the note by role', () => {
    expect(unformattedNote('assistant')).toBe('This reply could not be formatted, so it is shown as plain text.');
    expect(unformattedNote('user')).toBe('This message could not be formatted, so it is shown as plain text.');
  });
});

describe('the depth cap (tree)', () => {
  /** 10,000 nested block quotes, built by hand (no parser would): too deep for any recursive walk. */
  function deepQuotes(levels: number): MdastRoot {
    const root: MdastRoot = { type: 'root', children: [] };
    let parent: { children: MdastNodes[] } = root as unknown as { children: MdastNodes[] };
    for (let i = 0; i < levels; i++) {
      const quote = { type: 'blockquote', children: [] as MdastNodes[] } as unknown as MdastNodes & { children: MdastNodes[] };
      parent.children.push(quote);
      parent = quote;
    }
    parent.children.push({ type: 'paragraph', children: [{ type: 'text', value: 'the bottom' }] } as MdastNodes);
    return root;
  }

  it('cuts a tree at MARKDOWN_TREE_DEPTH levels, keeping the words below as text, without recursion', () => {
    const tree = deepQuotes(10_000);
    expect(capTreeDepth(tree)).toBe(true);
    expect(depth(tree)).toBeLessThanOrEqual(MARKDOWN_TREE_DEPTH + 3);
    expect(plainWords(tree as unknown as MdastNodes)).toBe('the bottom');
  });

  it('leaves a tree within the limit as it is', () => {
    const tree = parser.parse(NORMAL);
    const before = JSON.stringify(tree);
    expect(capTreeDepth(tree)).toBe(false);
    expect(JSON.stringify(tree)).toBe(before);
  });

  it('keeps a list a list when it cuts one', () => {
    const text = Array.from({ length: 12 }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`).join('\n');
    const tree = parser.parse(text);
    capTreeDepth(tree, 6);
    expect(depth(tree)).toBeLessThanOrEqual(6 + 4);
    const lists: string[] = [];
    const stack: MdastNodes[] = [tree];
    while (stack.length > 0) {
      const n = stack.pop() as MdastNodes;
      if (n.type === 'list') lists.push(n.children.map((c) => c.type).join());
      if ('children' in n) stack.push(...(n.children as MdastNodes[]));
    }
    expect(lists.every((l) => l.split(',').every((t) => t === 'listItem'))).toBe(true);
    // Below the cut, one item per level, in order.
    expect(lists.some((l) => l.split(',').length >= 8)).toBe(true);
    expect(plainWords(tree)).toContain('level 11 level 12');
  });
});

describe('the page pipeline (text to a rendered tree)', () => {
  it.each(HOSTILE_REPLIES)('$name: a shallow tree with its words', ({ text, marker }) => {
    const tree = markdownToHast(text);
    expect(depth(tree)).toBeLessThanOrEqual(2 * MARKDOWN_TREE_DEPTH + 4);
    expect(hastText(tree)).toContain(marker);
  });

  it('renders math as KaTeX HTML, raw HTML as text, and empties unsafe addresses', () => {
    const tree = markdownToHast('$x^2$ <img src=x onerror="alert(1)"> [js](javascript:alert(1)) [ok](https://example.com)');
    const json = JSON.stringify(tree);
    expect(json).toContain(MATH_HTML_CLASS);
    expect(json).toContain('class=\\"katex');
    expect(hastText(tree)).toContain('<img src=x onerror="alert(1)">');
    expect(json).not.toContain('javascript:');
    expect(json).toContain('https://example.com');
    expect(json).not.toContain('"position"');
  });

  it('links numbered citations to their sources', () => {
    const tree = markdownToHast('Bake hot [1].', ['https://bread.example/']);
    expect(JSON.stringify(tree)).toContain('https://bread.example/');
  });

  it('keeps safe and relative addresses, and empties the rest (react-markdown\'s rule)', () => {
    expect(safeUrl('https://a.b/c')).toBe('https://a.b/c');
    expect(safeUrl('mailto:x@y.z')).toBe('mailto:x@y.z');
    expect(safeUrl('#user-content-fn-1')).toBe('#user-content-fn-1');
    expect(safeUrl('/path?a=b:c')).toBe('/path?a=b:c');
    expect(safeUrl('javascript:alert(1)')).toBe('');
    expect(safeUrl('data:text/html,x')).toBe('');
    expect(safeUrl('VBScript:x')).toBe('');
  });
});

describe('plain text in pieces', () => {
  it('cuts a long text at line breaks into pieces of at most the size, losing nothing', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(50)}`).join('\n');
    const pieces = plainPieces(text, 1000);
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(1000);
    expect(pieces.join('\n')).toBe(text);
  });

  it('cuts a line longer than a piece without splitting a surrogate pair', () => {
    const text = `a${'😀'.repeat(1000)}`;
    const pieces = plainPieces(text, 100);
    expect(pieces.join('')).toBe(text);
    for (const p of pieces) expect(p).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  it('keeps a short text whole', () => {
    expect(plainPieces('short')).toEqual(['short']);
  });
});
