/**
 * Message Markdown to PDF layout blocks. The text is parsed with the same remark stack the view renders with
 * (remark-parse, remark-gfm, remark-math), never with regexes; the mdast tree is flattened into a few block kinds
 * the PDF writer knows how to lay out: text (paragraphs, headings, list items, quotes), code (code blocks, and
 * display math typeset as Unicode text by ./math-text.ts, as is inline math), tables and rules. Pure: no jspdf here.
 *
 * Hostile Markdown (src/protocol/markdown-guard.ts: nesting thousands deep, runs that make the parser slow) is not
 * parsed at all: its message is laid out as plain text, as is one the parser fails on. The tree of what is parsed
 * is cut at a sane depth before the recursive walk below.
 */
import type { Nodes, PhrasingContent, RootContent, Table } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { capTreeDepth } from '../../../protocol/markdown-depth';
import { tameMarkdown } from '../../../protocol/markdown-guard';
import { mathText } from './math-text';

/** body = DejaVu Sans, bold = DejaVu Sans Bold, mono = DejaVu Sans Mono. */
export type RunStyle = 'body' | 'bold' | 'mono';
export interface Run {
  text: string;
  style: RunStyle;
  link?: string;
}

export type Block =
  | {
      kind: 'text';
      runs: Run[];
      /** Font size in points (headings are larger). */
      size: number;
      indent: number;
      /** List marker drawn in the indent before the first line ("•", "3.", "☐"). */
      marker?: string;
      /** Inside a block quote: a bar is drawn at the left of each line. */
      quote: boolean;
    }
  | { kind: 'code'; text: string; indent: number; math: boolean; quote: boolean }
  | { kind: 'table'; header: Run[][]; rows: Run[][][]; indent: number }
  | { kind: 'rule'; indent: number };

export const BODY_SIZE = 10.5;
const HEADING_SIZE = [15, 13.5, 12, 11, 11, 11] as const;
const LIST_INDENT = 16;
const QUOTE_INDENT = 12;

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkMath);

/** Inline mdast to styled runs. Emphasis and strikethrough keep their words in the body face (no italic font is embedded). */
export function inlineRuns(nodes: readonly PhrasingContent[], style: RunStyle = 'body', link?: string): Run[] {
  const out: Run[] = [];
  const push = (text: string, s: RunStyle, l: string | undefined = link) => {
    if (text !== '') out.push(l === undefined ? { text, style: s } : { text, style: s, link: l });
  };
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        push(node.value, style);
        break;
      case 'strong':
        out.push(...inlineRuns(node.children, style === 'mono' ? 'mono' : 'bold', link));
        break;
      case 'emphasis':
      case 'delete':
        out.push(...inlineRuns(node.children, style, link));
        break;
      case 'inlineCode':
        push(node.value, 'mono');
        break;
      case 'inlineMath': {
        // Typeset as Unicode text (x² + y²); TeX KaTeX cannot parse stays as written, as the view shows it.
        const text = mathText(node.value, false);
        if (text === null) push(`$${node.value}$`, 'mono');
        else push(text.replace(/\n/g, ' '), style === 'mono' ? 'body' : style);
        break;
      }
      case 'break':
        push('\n', style);
        break;
      case 'link': {
        const inner = inlineRuns(node.children, style, node.url);
        out.push(...inner);
        // Show where a link goes when its words do not say it (a PDF reader may not follow the annotation).
        if (inner.map((r) => r.text).join('') !== node.url) push(` (${node.url})`, style, node.url);
        break;
      }
      case 'image':
        push(`[image: ${node.alt || node.url}]`, style);
        break;
      case 'html':
        push(node.value, style);
        break;
      case 'footnoteReference':
        push(`[^${node.label ?? node.identifier}]`, style);
        break;
      default:
        // linkReference, imageReference: their words.
        if ('children' in node) out.push(...inlineRuns(node.children as PhrasingContent[], style, link));
        else if ('value' in node && typeof node.value === 'string') push(node.value, style);
    }
  }
  return out;
}

interface Context {
  indent: number;
  quote: boolean;
}

function tableBlock(node: Table, ctx: Context): Block {
  const [head, ...body] = node.children;
  const cells = (row: Table['children'][number]) => row.children.map((cell) => inlineRuns(cell.children));
  return {
    kind: 'table',
    header: head ? cells(head).map((runs) => runs.map((r) => ({ ...r, style: r.style === 'mono' ? r.style : ('bold' as const) }))) : [],
    rows: body.map(cells),
    indent: ctx.indent,
  };
}

/** A display formula typeset as Unicode text, or its TeX as written (in the code face) when KaTeX cannot parse it. */
function displayMath(tex: string, ctx: Context): Block {
  const text = mathText(tex, true);
  return text === null
    ? { kind: 'code', text: `$$\n${tex}\n$$`, indent: ctx.indent, math: false, quote: ctx.quote }
    : { kind: 'code', text, indent: ctx.indent, math: true, quote: ctx.quote };
}

function flatten(nodes: readonly RootContent[], ctx: Context, out: Block[], marker?: string): void {
  let pendingMarker = marker;
  const take = (): string | undefined => {
    const m = pendingMarker;
    pendingMarker = undefined;
    return m;
  };
  for (const node of nodes) {
    switch (node.type) {
      case 'paragraph':
        out.push({ kind: 'text', runs: inlineRuns(node.children), size: BODY_SIZE, indent: ctx.indent, marker: take(), quote: ctx.quote });
        break;
      case 'heading':
        out.push({
          kind: 'text',
          runs: inlineRuns(node.children, 'bold'),
          size: HEADING_SIZE[node.depth - 1] ?? BODY_SIZE,
          indent: ctx.indent,
          marker: take(),
          quote: ctx.quote,
        });
        break;
      case 'code':
        // A ```math block is display math in the view too.
        out.push(node.lang === 'math' ? displayMath(node.value, ctx) : { kind: 'code', text: node.value, indent: ctx.indent, math: false, quote: ctx.quote });
        break;
      case 'math':
        out.push(displayMath(node.value, ctx));
        break;
      case 'blockquote':
        flatten(node.children, { indent: ctx.indent + QUOTE_INDENT, quote: true }, out, take());
        break;
      case 'list': {
        const start = node.start ?? 1;
        node.children.forEach((item, i) => {
          const bullet = item.checked === true ? '☑' : item.checked === false ? '☐' : node.ordered ? `${start + i}.` : '•';
          const before = out.length;
          flatten(item.children, { indent: ctx.indent + LIST_INDENT, quote: ctx.quote }, out, bullet);
          // An empty item still shows its marker.
          if (out.length === before) out.push({ kind: 'text', runs: [], size: BODY_SIZE, indent: ctx.indent + LIST_INDENT, marker: bullet, quote: ctx.quote });
        });
        break;
      }
      case 'table':
        out.push(tableBlock(node, ctx));
        break;
      case 'thematicBreak':
        out.push({ kind: 'rule', indent: ctx.indent });
        break;
      case 'html':
        out.push({ kind: 'text', runs: [{ text: node.value, style: 'body' }], size: BODY_SIZE, indent: ctx.indent, marker: take(), quote: ctx.quote });
        break;
      case 'footnoteDefinition':
        flatten(node.children, ctx, out, `[^${node.label ?? node.identifier}]`);
        break;
      default: {
        // Definitions and anything else without a page presence of its own: keep words that are there.
        const n = node as Nodes;
        if ('children' in n && Array.isArray(n.children)) flatten(n.children as RootContent[], ctx, out, take());
      }
    }
  }
}

/** A message's text as written (hostile or broken Markdown): one text block, its lines kept, spaces collapsed. */
export function plainBlocks(text: string): Block[] {
  return [{ kind: 'text', runs: [{ text, style: 'body' }], size: BODY_SIZE, indent: 0, quote: false }];
}

/**
 * The layout blocks of one message's Markdown text; `plain` when it is laid out as plain text instead (its
 * Markdown is hostile, or the parser failed on it), and the caller then says so above it.
 */
export function messageBlocks(markdown: string): { blocks: Block[]; plain: boolean } {
  if (tameMarkdown(markdown).tamed) return { blocks: plainBlocks(markdown), plain: true };
  try {
    const tree = parser.parse(markdown);
    capTreeDepth(tree);
    const out: Block[] = [];
    flatten(tree.children, { indent: 0, quote: false }, out);
    return { blocks: out, plain: false };
  } catch {
    return { blocks: plainBlocks(markdown), plain: true };
  }
}

/** The layout blocks of one message's Markdown text. */
export function markdownBlocks(markdown: string): Block[] {
  return messageBlocks(markdown).blocks;
}
