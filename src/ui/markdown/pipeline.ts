/**
 * Model Markdown to a rendered tree (hast) that can cross to the page by postMessage: react-markdown's pipeline
 * (remark-parse, remark-gfm, remark-math, remark-rehype) split from its React half, so that it can run in the parse
 * worker (./parse-worker.ts) as well as on the page, with the same result. No React and no DOM here.
 *
 * On the way: the text is tamed first (src/protocol/markdown-guard.ts) and the tree cut at a sane depth
 * (src/protocol/markdown-depth.ts); numbered citations become links to their sources; math becomes KaTeX's HTML
 * (./math.ts); raw HTML in the text becomes text; a link or image address that is not safe becomes empty (the
 * view then shows its words without a link), as react-markdown's `defaultUrlTransform` does.
 */
import type { Element, Nodes, Root, RootContent } from 'hast';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { capTreeDepth } from '../../protocol/markdown-depth';
import { tameMarkdown } from '../../protocol/markdown-guard';
import { citeSources } from '../components/web/citations';
import { renderMath } from './math';

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkMath);
// As react-markdown: raw HTML reaches the tree as `raw` nodes, which become text below.
const toHast = unified().use(remarkRehype, { allowDangerousHtml: true });

const SAFE_PROTOCOL = /^(https?|ircs?|mailto|xmpp)$/i;

/** react-markdown's `defaultUrlTransform`: a relative address or one with a safe protocol, else ''. */
export function safeUrl(value: string): string {
  const colon = value.indexOf(':');
  const question = value.indexOf('?');
  const hash = value.indexOf('#');
  const slash = value.indexOf('/');
  if (
    colon === -1 ||
    (slash !== -1 && colon > slash) ||
    (question !== -1 && colon > question) ||
    (hash !== -1 && colon > hash) ||
    SAFE_PROTOCOL.test(value.slice(0, colon))
  ) {
    return value;
  }
  return '';
}

/** Raw HTML to text, unsafe addresses emptied, source positions dropped (they only weigh on the transfer). */
function finish(tree: Root): void {
  delete tree.position;
  const stack: Array<Root | Element> = [tree];
  while (stack.length > 0) {
    const parent = stack.pop() as Root | Element;
    parent.children.forEach((child: RootContent, i) => {
      if (child.type === 'raw') {
        parent.children[i] = { type: 'text', value: child.value };
        return;
      }
      delete (child as Nodes).position;
      if (child.type !== 'element') return;
      for (const key of ['href', 'src'] as const) {
        const value = child.properties[key];
        if (value !== undefined && value !== null) child.properties[key] = safeUrl(String(value));
      }
      stack.push(child);
    });
  }
}

/**
 * The rendered tree of a Markdown text. `hrefs`: the links of the web sources its numbered citations point to
 * (`[n]` links to hrefs[n - 1]). Throws only on a bug in a library (the view then shows the text as plain text).
 */
export function markdownToHast(text: string, hrefs: readonly (string | undefined)[] = []): Root {
  const mdast = parser.parse(tameMarkdown(text).text);
  capTreeDepth(mdast);
  if (hrefs.length > 0) citeSources(mdast, hrefs);
  const tree = toHast.runSync(mdast) as Root;
  renderMath(tree);
  finish(tree);
  return tree;
}

/**
 * Text small and plain enough to parse on the page itself, in the render that shows it: anything longer or busier
 * goes to the parse worker. The parser has cases that grow with the square of the text (thousands of setext
 * headings, delimiters or brackets in one paragraph, deep containers); within these limits even those stay a few
 * milliseconds (docs/benchmarks.md, "Hostile Markdown").
 */
export const PAGE_PARSE_LIMITS = { chars: 1500, lines: 40, delimiters: 60, markersPerLine: 3, indentColumns: 8 } as const;

export function fitsPageParse(text: string): boolean {
  const { chars, lines, delimiters, markersPerLine, indentColumns } = PAGE_PARSE_LIMITS;
  if (text.length > chars) return false;
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) if (++count > lines) return false;
  const scan = tameMarkdown(text);
  return !scan.tamed && scan.delimiters <= delimiters && scan.deepestLine <= markersPerLine && scan.widestIndent <= indentColumns;
}
