/**
 * Markdown of model output: GFM, $ math (KaTeX, fonts served from this origin), fenced code with a copy button.
 * Raw HTML in model output is not rendered, and links open outside the app: no script from a model ever runs in
 * the app's origin.
 *
 * Hostile or just long Markdown never holds the page (docs/architecture.md, "Hostile Markdown"): the text is parsed
 * to a tree (../markdown/pipeline.ts, tamed and depth-capped on the way) either here, when it is small and plain
 * enough to take a few milliseconds (`fitsPageParse`, and a few such texts per task at most), or in the parse
 * worker, which has a time budget. The tree becomes React elements here (../markdown/to-react.tsx). A text the
 * worker could not parse in its budget is shown as plain text with a note. While a text is in the worker, what
 * is already rendered of it shows (its blocks, or the previous version of a streaming block), else its plain text.
 *
 * A finished message is parsed once: its rendering is cached under the caller's key (message id and updatedAt). A
 * streaming message has no key: it is rendered block by block (./markdown-blocks.ts), and only its last, growing
 * block is parsed again on each update.
 */
import { memo, useEffect, useMemo, useRef, useState, type ReactElement, type ReactNode } from 'react';
import 'katex/dist/katex.min.css';
import type { WebSourceRecord } from '../../events/model';
import { fitsPageParse, markdownToHast } from '../markdown/pipeline';
import { MarkdownParseClient, startBrowserParseWorker } from '../markdown/parse-client';
import { hastToReact } from '../markdown/to-react';
import { splitBlocks } from './markdown-blocks';
import { PlainText, UnformattedText } from './PlainText';
import { citationHrefs } from './web/citations';

type Rendered = { kind: 'tree'; element: ReactElement } | { kind: 'failed' };

/** Renderings of finished messages, by key; least recently used first (a Map keeps insertion order). */
const cache = new Map<string, Rendered>();
export const MARKDOWN_CACHE_SIZE = 2000;
/** Renderings of blocks of streaming replies, by their text. */
const blockCache = new Map<string, Rendered>();
const BLOCK_CACHE_SIZE = 4000;

let client: MarkdownParseClient | null = null;
function parseClient(): MarkdownParseClient {
  client ??= new MarkdownParseClient(startBrowserParseWorker);
  return client;
}

/**
 * Characters parsed on the page in one task at most: each text that fits `fitsPageParse` takes a few
 * milliseconds, and a conversation opening with many of them must not add up to a long task.
 */
const PAGE_PARSE_PER_TASK = 6000;
let spentThisTask = 0;

function mayParseOnPage(text: string): boolean {
  if (spentThisTask + text.length > PAGE_PARSE_PER_TASK || !fitsPageParse(text)) return false;
  if (spentThisTask === 0) setTimeout(() => (spentThisTask = 0), 0);
  spentThisTask += text.length;
  return true;
}

function lookup(store: Map<string, Rendered>, key: string): Rendered | undefined {
  const hit = store.get(key);
  if (hit !== undefined) {
    store.delete(key);
    store.set(key, hit);
  }
  return hit;
}

function remember(store: Map<string, Rendered>, size: number, key: string, value: Rendered): void {
  store.set(key, value);
  if (store.size > size) store.delete(store.keys().next().value as string);
}

function fromTree(make: () => ReturnType<typeof markdownToHast>): Rendered {
  try {
    return { kind: 'tree', element: hastToReact(make()) };
  } catch {
    return { kind: 'failed' };
  }
}

interface Source {
  store: Map<string, Rendered>;
  size: number;
}
const FINISHED: Source = { store: cache, size: MARKDOWN_CACHE_SIZE };
const BLOCKS: Source = { store: blockCache, size: BLOCK_CACHE_SIZE };

/**
 * The rendering of `text` under `key`: this place's own last one, cached, or parsed here now when it may be, else
 * asked of the worker when `ask` (null until it answers, then the component renders again). No key: nothing to
 * render (null). `source`: the cache to keep it in, or null for a text that will not come back (the growing last
 * block of a streaming reply: caching each of its versions would keep every prefix of the reply). `slot` names a
 * place parsed again and again, so that only its newest text waits in the worker's queue.
 */
function useRendered(source: Source | null, key: string | undefined, text: string, hrefs: readonly (string | undefined)[], ask: boolean, slot?: object): Rendered | null {
  const own = useRef<{ key: string; rendered: Rendered } | null>(null);
  const [, setAnswered] = useState(0);
  let rendered: Rendered | null = null;
  if (key !== undefined) {
    rendered = own.current?.key === key ? own.current.rendered : source ? (lookup(source.store, key) ?? null) : null;
    if (rendered === null && mayParseOnPage(text)) {
      rendered = fromTree(() => markdownToHast(text, hrefs));
      if (source) remember(source.store, source.size, key, rendered);
    }
    if (rendered !== null) own.current = { key, rendered };
  }
  const waiting = key !== undefined && rendered === null && ask;
  useEffect(() => {
    if (!waiting || key === undefined) return;
    let live = true;
    void parseClient()
      .parse(text, hrefs, slot)
      .then((outcome) => {
        if (!outcome.ok && outcome.reason === 'superseded') return;
        const answer: Rendered = outcome.ok ? fromTree(() => outcome.tree) : { kind: 'failed' };
        if (source) remember(source.store, source.size, key, answer);
        if (!live) return;
        own.current = { key, rendered: answer };
        setAnswered((n) => n + 1);
      });
    return () => {
      live = false;
    };
    // The key stands for the text and its sources.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, waiting]);
  return rendered;
}

function blockKey(block: string, hrefs: readonly (string | undefined)[]): string {
  return hrefs.length > 0 ? `${hrefs.join('\n')}\u0000${block}` : block;
}

interface BlockProps {
  text: string;
  hrefs: readonly (string | undefined)[];
  /** False when the whole reply is in the worker already: a block not rendered yet shows as plain text meanwhile. */
  ask: boolean;
  /** The whole reply's rendering, shown in place of block 0's (so that a reply of one block keeps its DOM). */
  whole?: Rendered;
  /** The block is finished (not the growing last one of a streaming reply): its rendering is cached. */
  done?: boolean;
}

/** One block of a reply; while its new text parses in the worker, its previous rendering shows. */
const Block = memo(function Block({ text, hrefs, ask, whole, done = false }: BlockProps) {
  const slot = useRef({}).current;
  const rendered = useRendered(done ? BLOCKS : null, whole ? undefined : blockKey(text, hrefs), text, hrefs, ask, slot);
  const last = useRef<Rendered | null>(null);
  if (whole ?? rendered) last.current = whole ?? rendered;
  const shown = last.current;
  if (shown === null) return <PlainText text={text} />;
  return shown.kind === 'tree' ? shown.element : <UnformattedText text={text} />;
});

/**
 * A reply block by block: its finished blocks keep their renderings, only the last (growing) block of a streaming
 * reply is parsed again on each update, so the cost of an update stays flat however long the reply gets. A whole
 * rendering given takes block 0's place, alone.
 */
function Blocks({ text, hrefs, ask, whole, finished }: Omit<BlockProps, 'whole' | 'done'> & { whole: Rendered | null; finished: boolean }) {
  if (whole !== null) return <Block key={0} text={text} hrefs={hrefs} ask={false} whole={whole} />;
  const blocks = splitBlocks(text);
  const last = blocks.length - 1;
  return (
    <>
      {blocks.map((block, i) => (
        <Block key={i} text={block} hrefs={hrefs} ask={ask} done={finished || i < last} />
      ))}
    </>
  );
}

/** More blocks than this, and a reply waiting for the worker shows as plain text rather than block by block. */
const MAX_PLACEHOLDER_BLOCKS = 100;

/** Sources of a web search the reply cites: "[n]" links to source n (./web/citations.ts). */
type Citations = readonly WebSourceRecord[] | undefined;

/**
 * A streaming reply (no `cacheKey`) renders block by block. A finished one is rendered whole (references and
 * footnotes resolve across blocks), in block 0's place so that the DOM of a one-block reply stays; meanwhile its
 * blocks show when they are rendered already (it just streamed) or few enough to render from the cache, else its
 * plain text. `data-format` says where a finished one is: parsing, formatted, or plain (it could not be formatted).
 */
export default function Markdown({ text, cacheKey, citations }: { text: string; cacheKey?: string; citations?: Citations }) {
  const hrefs = useMemo(() => (citations && citations.length > 0 ? citationHrefs(citations) : []), [citations]);
  // The text's length rides along in the key: a key reused for other text (it should not happen) misses the cache.
  const key = cacheKey === undefined ? undefined : `${cacheKey}:${text.length}:${hrefs.length}`;
  const whole = useRendered(FINISHED, key, text, hrefs, true);
  // The reply streamed here: its blocks' own renderings are in place while the whole parses.
  const streamed = useRef(false);
  if (key === undefined) streamed.current = true;
  let body: ReactNode;
  if (key === undefined || whole !== null) body = <Blocks text={text} hrefs={hrefs} ask whole={whole} finished={false} />;
  else {
    const blocks = splitBlocks(text);
    const cached = blocks.every((b) => blockCache.has(blockKey(b, hrefs)));
    // A reply of one block is parsed once only (as the whole); very many blocks not rendered yet show as plain text.
    const byBlock = streamed.current || cached || (blocks.length > 1 && blocks.length <= MAX_PLACEHOLDER_BLOCKS);
    body = byBlock ? <Blocks text={text} hrefs={hrefs} ask={false} whole={null} finished /> : <PlainText text={text} />;
  }
  const format = key === undefined ? undefined : whole === null ? 'parsing' : whole.kind === 'tree' ? 'formatted' : 'plain';
  return (
    <div className="markdown" data-format={format}>
      {body}
    </div>
  );
}
