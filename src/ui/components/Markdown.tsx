/**
 * Markdown of model output: GFM, $ math (KaTeX, fonts served from this origin), fenced code with a copy button.
 * Raw HTML in model output is not rendered (no rehype-raw), and links open outside the app: no script from a
 * model ever runs in the app's origin.
 *
 * Parsing is the costly part of a message, so a finished message is parsed once: its rendered tree is cached
 * under the caller's key (message id and updatedAt), and a message scrolled back into the virtualised list, or
 * re-rendered for any other reason, reuses it. A streaming message has no key: it is parsed block by block and only
 * its last block again on each update (./markdown-blocks.ts).
 */
import { Fragment, type ReactElement } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import rehypeKatex from 'rehype-katex';
import 'katex/dist/katex.min.css';
import { CodeBlock } from './CodeBlock';
import { splitBlocks } from './markdown-blocks';
import type { WebSourceRecord } from '../../events/model';
import { remarkCitations } from './web/citations';

const components: Components = {
  pre({ children }) {
    return <>{children}</>;
  },
  code({ className, children }) {
    const text = String(children ?? '');
    const match = /language-([\w+-]+)/.exec(className ?? '');
    const block = match !== null || text.includes('\n');
    if (!block) return <code className="inline-code">{children}</code>;
    return <CodeBlock language={match?.[1] ?? ''} code={text.replace(/\n$/, '')} />;
  },
  // Images in model text would be fetched from any host the model names (a tracking pixel at best, and the CSP
  // blocks them anyway): show them as links instead, except data: images, which are inline.
  img({ src, alt }) {
    const url = typeof src === 'string' ? src : '';
    if (url.startsWith('data:image/')) return <img src={url} alt={alt ?? ''} className="inline-image" />;
    if (url === '') return <span className="link-removed">{alt ? `Image: ${alt}` : 'Image'}</span>;
    return (
      <a href={url} target="_blank" rel="noopener noreferrer nofollow">
        {alt ? `Image: ${alt}` : 'Image link'}
      </a>
    );
  },
  a({ href, children, className }) {
    // An address react-markdown removed (javascript:, data:, vbscript: ...) leaves the text, not a link to this page.
    if (!href) return <span className={className ? `${className} link-removed` : 'link-removed'}>{children}</span>;
    return (
      <a href={href} className={className} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    );
  },
};

const remarkPlugins = [remarkGfm, remarkMath];
const rehypePlugins = [rehypeKatex];

/** Rendered trees of finished messages, by key; least recently used first (a Map keeps insertion order). */
const cache = new Map<string, ReactElement>();
export const MARKDOWN_CACHE_SIZE = 2000;

/** Sources of a web search the reply cites: "[n]" links to source n (./web/citations.ts). */
type Citations = readonly WebSourceRecord[] | undefined;

function render(text: string, citations?: Citations): ReactElement {
  // react-markdown's component is a plain synchronous function of its props (no hooks): calling it yields the
  // element tree, which is what we keep.
  const plugins = citations && citations.length > 0 ? [...remarkPlugins, remarkCitations(citations)] : remarkPlugins;
  return ReactMarkdown({ remarkPlugins: plugins, rehypePlugins, components, children: text }) as ReactElement;
}

function cached(key: string, text: string, citations?: Citations): ReactElement {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const tree = render(text, citations);
  cache.set(key, tree);
  if (cache.size > MARKDOWN_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return tree;
}

/** Rendered blocks of streaming replies, by their text (small: only the replies streaming right now use it). */
const blockCache = new Map<string, ReactElement>();
const BLOCK_CACHE_SIZE = 400;

function renderBlock(block: string, citations?: Citations): ReactElement {
  const key = citations && citations.length > 0 ? `${citations.map((c) => c.url).join('\n')}\u0000${block}` : block;
  const hit = blockCache.get(key);
  if (hit !== undefined) return hit;
  const tree = render(block, citations);
  blockCache.set(key, tree);
  if (blockCache.size > BLOCK_CACHE_SIZE) blockCache.delete(blockCache.keys().next().value as string);
  return tree;
}

/**
 * A reply still streaming: its finished blocks keep their rendered trees, only the last (growing) block is
 * parsed again on each update, so the cost of an update stays flat however long the reply gets.
 */
function Streaming({ text, citations }: { text: string; citations?: Citations }) {
  const blocks = splitBlocks(text);
  const last = blocks.length - 1;
  return (
    <>
      {blocks.map((block, i) => (
        <Fragment key={i}>{i === last ? render(block, citations) : renderBlock(block, citations)}</Fragment>
      ))}
    </>
  );
}

export default function Markdown({ text, cacheKey, citations }: { text: string; cacheKey?: string; citations?: Citations }) {
  // The text's length rides along in the key: a key reused for other text (it should not happen) misses the cache.
  return <div className="markdown">{cacheKey === undefined ? <Streaming text={text} citations={citations} /> : cached(`${cacheKey}:${text.length}:${citations?.length ?? 0}`, text, citations)}</div>;
}
