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
 * The rendering of `text` under `key`: cached, or parsed here now when it may be, else asked of the worker (null
 * until it answers, then the component renders again). `slot` names a place parsed again and again, so that only
 * its newest text waits in the worker's queue.
 */
function useRendered(source: Source, key: string, text: string, hrefs: readonly (string | undefined)[], slot?: object): Rendered | null {
  const [, setAnswered] = useState(0);
  let rendered = lookup(source.store, key) ?? null;
  if (rendered === null && mayParseOnPage(text)) {
    rendered = fromTree(() => markdownToHast(text, hrefs));
    remember(source.store, source.size, key, rendered);
  }
  const waiting = rendered === null;
  useEffect(() => {
    if (!waiting) return;
    let live = true;
    void parseClient()
      .parse(text, hrefs, slot)
      .then((outcome) => {
        if (!outcome.ok && outcome.reason === 'superseded') return;
        remember(source.store, source.size, key, outcome.ok ? fromTree(() => outcome.tree) : { kind: 'failed' });
        if (live) setAnswered((n) => n + 1);
      });
    return () => {
      live = false;
    };
    // The key stands for the text and its sources.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, waiting]);
  return rendered;
}

function show(rendered: Rendered, text: string): ReactNode {
  return rendered.kind === 'tree' ? rendered.element : <UnformattedText text={text} />;
}

function blockKey(block: string, hrefs: readonly (string | undefined)[]): string {
  return hrefs.length > 0 ? `${hrefs.join('\n')}\u0000${block}` : block;
}

/** One block of a reply; while its new text parses in the worker, its previous rendering shows. */
const Block = memo(function Block({ text, hrefs }: { text: string; hrefs: readonly (string | undefined)[] }) {
  const slot = useRef({}).current;
  const rendered = useRendered(BLOCKS, blockKey(text, hrefs), text, hrefs, slot);
  const last = useRef<Rendered | null>(null);
  if (rendered !== null) last.current = rendered;
  const shown = rendered ?? last.current;
  return shown === null ? <PlainText text={text} /> : show(shown, text);
});

/**
 * A reply still streaming: its finished blocks keep their renderings, only the last (growing) block is parsed
 * again on each update, so the cost of an update stays flat however long the reply gets.
 */
function Blocks({ text, hrefs }: { text: string; hrefs: readonly (string | undefined)[] }) {
  const blocks = splitBlocks(text);
  return (
    <>
      {blocks.map((block, i) => (
        <Block key={i} text={block} hrefs={hrefs} />
      ))}
    </>
  );
}

/**
 * A finished reply, parsed whole (references and footnotes resolve across blocks); what is rendered of its blocks
 * shows meanwhile. `data-format` says where it is: parsing, formatted, or plain (it could not be formatted).
 */
function Finished({ cacheKey, text, hrefs }: { cacheKey: string; text: string; hrefs: readonly (string | undefined)[] }) {
  const rendered = useRendered(FINISHED, cacheKey, text, hrefs);
  if (rendered !== null) {
    return (
      <div className="markdown" data-format={rendered.kind === 'tree' ? 'formatted' : 'plain'}>
        {show(rendered, text)}
      </div>
    );
  }
  // Its blocks show meanwhile when they are rendered already (it just streamed) or few enough to render; a reply of
  // one block is only parsed once (as the whole); very many blocks not rendered yet show as plain text.
  const blocks = splitBlocks(text);
  const ready = blocks.every((b) => blockCache.has(blockKey(b, hrefs)));
  const byBlock = blocks.length > 1 && (ready || blocks.length <= MAX_PLACEHOLDER_BLOCKS);
  return (
    <div className="markdown" data-format="parsing">
      {byBlock ? <Blocks text={text} hrefs={hrefs} /> : <PlainText text={text} />}
    </div>
  );
}

/** More blocks than this, and a reply waiting for the worker shows as plain text rather than block by block. */
const MAX_PLACEHOLDER_BLOCKS = 100;

/** Sources of a web search the reply cites: "[n]" links to source n (./web/citations.ts). */
type Citations = readonly WebSourceRecord[] | undefined;

export default function Markdown({ text, cacheKey, citations }: { text: string; cacheKey?: string; citations?: Citations }) {
  const hrefs = useMemo(() => (citations && citations.length > 0 ? citationHrefs(citations) : []), [citations]);
  if (cacheKey === undefined) {
    return (
      <div className="markdown">
        <Blocks text={text} hrefs={hrefs} />
      </div>
    );
  }
  // The text's length rides along in the key: a key reused for other text (it should not happen) misses the cache.
  return <Finished cacheKey={`${cacheKey}:${text.length}:${hrefs.length}`} text={text} hrefs={hrefs} />;
}
