/**
 * A cap on the nesting depth of scraped HTML (docs/gateway.md, "Web search and scraping"). Deep nesting is what
 * makes reading a page slow: Readability on a linkedom document slows down steeply with depth (2,500 nested
 * <div>s, 27.5 KB, took 33 s), and htmlparser2, the parser linkedom builds its tree with, keeps its open elements
 * in an array it inserts at the front of (100,000 unclosed <span>s: 42 s before any DOM exists).
 *
 * So before the page reaches the DOM, one linear pass over htmlparser2's own tokenizer (the same tokens linkedom
 * gets) follows the open elements exactly as htmlparser2's parser does (implied end tags, void elements, SVG and
 * MathML self-closing tags), with a plain stack. Elements deeper than MAX_HTML_DEPTH lose their tags and keep their
 * text; a block element's dropped tags leave a line break. The page is not refused: the reader still gets every
 * word it holds (the most text for the user), only without the structure nobody nests that deep on purpose.
 * Chromium's own HTML parser does much the same past 512 levels. Everything else of the page is copied unchanged.
 */
import { Tokenizer } from 'htmlparser2';

/**
 * Deepest element kept as an element (<html> is depth 1). Real pages stay well under it; Readability on a page
 * nested this deep takes a few hundred milliseconds.
 */
export const MAX_HTML_DEPTH = 64;

/** Elements whose dropped tags still end a line of the text. */
const BLOCK_TAGS = new Set(['p', 'div', 'section', 'article', 'header', 'footer', 'main', 'aside', 'nav', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'pre', 'blockquote', 'table', 'tr', 'td', 'th', 'figure', 'figcaption', 'dl', 'dt', 'dd', 'hr', 'br']);

// The element rules of htmlparser2's Parser (htmlparser2/dist/esm/Parser.js, version 10), which linkedom uses.
const VOID_TAGS = new Set(['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const FOREIGN_TAGS = new Set(['math', 'svg']);
const INTEGRATION_TAGS = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title']);
const P = new Set(['p']);
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const DD_DT = new Set(['dd', 'dt']);
const RT_RP = new Set(['rt', 'rp']);
/** An opening tag of the key closes the open elements of the set on top of the stack. */
const OPEN_IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DD_DT],
  ['dt', DD_DT],
  ['rt', RT_RP],
  ['rp', RT_RP],
  ['tbody', new Set(['thead', 'tbody'])],
  ['tfoot', new Set(['thead', 'tbody'])],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((t): [string, Set<string>] => [t, FORM]),
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((t): [string, Set<string>] => [t, P]),
]);

interface Open {
  name: string;
  kept: boolean;
}

export interface CappedHtml {
  html: string;
  /** The deepest nesting of the page as it came. */
  depth: number;
  /** Elements whose tags were dropped. */
  flattened: number;
  /** Elements the page opens (void ones included). */
  elements: number;
}

/**
 * The page with every element deeper than `maxDepth` unwrapped (its text kept). Returns the page itself when
 * nothing is that deep. Linear in the page.
 */
export function capNesting(html: string, maxDepth: number = MAX_HTML_DEPTH): CappedHtml {
  const stack: Open[] = [];
  /** How many elements of each name are open (htmlparser2 searches its stack for a closing tag's name). */
  const openCount = new Map<string, number>();
  /** SVG / MathML context, innermost last (htmlparser2 honours `/>` only there). */
  const foreign: boolean[] = [];
  const out: string[] = [];
  let copiedTo = 0;
  let depth = 0;
  let flattened = 0;
  let elements = 0;
  let tag: { name: string; start: number; kept: boolean } | null = null;

  const push = (name: string, kept: boolean): void => {
    stack.push({ name, kept });
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
    if (stack.length > depth) depth = stack.length;
  };
  const pop = (): Open | undefined => {
    const top = stack.pop();
    if (top) openCount.set(top.name, (openCount.get(top.name) ?? 1) - 1);
    return top;
  };
  /** A line break stands for the dropped tags since the last text (one is enough). */
  let broken = false;
  /** Leaves out html[start..end] (a tag), writing a line break instead for a block element. */
  const drop = (start: number, end: number, name: string): void => {
    if (start > copiedTo) {
      out.push(html.slice(copiedTo, start));
      broken = false;
    }
    if (BLOCK_TAGS.has(name) && !broken) {
      out.push('\n');
      broken = true;
    }
    copiedTo = end + 1;
  };
  const endOpenTag = (end: number, selfClosing: boolean): void => {
    if (!tag) return;
    const { name, start, kept } = tag;
    tag = null;
    if (!kept) drop(start, end, name);
    if (selfClosing && stack.at(-1)?.name === name) pop();
  };

  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        const name = html.slice(start, end).toLowerCase();
        const closes = OPEN_IMPLIES_CLOSE.get(name);
        while (closes && stack.length > 0 && closes.has(stack.at(-1)?.name ?? '')) pop();
        const kept = stack.length < maxDepth;
        elements++;
        if (!kept) flattened++;
        if (!VOID_TAGS.has(name)) {
          push(name, kept);
          if (FOREIGN_TAGS.has(name)) foreign.push(true);
          else if (INTEGRATION_TAGS.has(name)) foreign.push(false);
        }
        tag = { name, start: start - 1, kept };
      },
      onopentagend(end) {
        endOpenTag(end, false);
      },
      onselfclosingtag(end) {
        endOpenTag(end, foreign.at(-1) === true);
      },
      onclosetag(start, end) {
        const name = html.slice(start, end).toLowerCase();
        if (FOREIGN_TAGS.has(name) || INTEGRATION_TAGS.has(name)) foreign.pop();
        if (VOID_TAGS.has(name) || (openCount.get(name) ?? 0) === 0) return; // a stray end tag changes no depth
        let closed: Open | undefined;
        do closed = pop();
        while (closed && closed.name !== name);
        if (closed && !closed.kept) {
          const gt = html.indexOf('>', end);
          drop(html.lastIndexOf('<', start), gt < 0 ? html.length - 1 : gt, name);
        }
      },
      onattribdata() {},
      onattribentity() {},
      onattribend() {},
      onattribname() {},
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onend() {},
      onprocessinginstruction() {},
      ontext() {},
      ontextentity() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  if (copiedTo === 0) return { html, depth, flattened: 0, elements };
  out.push(html.slice(copiedTo));
  return { html: out.join(''), depth, flattened, elements };
}
