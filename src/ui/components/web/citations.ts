/**
 * Numbered citations in replies: a remark plugin that turns "[n]" in a reply's text into a link to source n of
 * the web search its prompt ran (only http and https URLs; only numbers that have a source). Text inside code,
 * links and math is left alone, as is "[n](...)", which Markdown already reads as a link.
 */
import type { Link, Nodes, Parent, PhrasingContent, Root, Text } from 'mdast';
import type { WebSourceRecord } from '../../../events/model';
import { safeHref } from './safe-href';

const CITE = /\[(\d{1,3})\]/g;
const SKIP = new Set(['code', 'inlineCode', 'link', 'linkReference', 'math', 'inlineMath', 'html', 'definition']);

function split(node: Text, hrefs: readonly (string | undefined)[]): PhrasingContent[] | null {
  const value = node.value;
  if (!value.includes('[')) return null;
  const out: PhrasingContent[] = [];
  let last = 0;
  for (const m of value.matchAll(CITE)) {
    const n = Number(m[1]);
    const href = hrefs[n - 1];
    if (!href) continue;
    const at = m.index ?? 0;
    if (at > last) out.push({ type: 'text', value: value.slice(last, at) });
    const link: Link = { type: 'link', url: href, title: null, children: [{ type: 'text', value: `[${n}]` }], data: { hProperties: { className: ['citation'] } } };
    out.push(link);
    last = at + m[0].length;
  }
  if (out.length === 0) return null;
  if (last < value.length) out.push({ type: 'text', value: value.slice(last) });
  return out;
}

function walk(node: Nodes, hrefs: readonly (string | undefined)[]): void {
  if (!('children' in node) || SKIP.has(node.type)) return;
  const parent = node as Parent;
  const next: Nodes[] = [];
  let changed = false;
  for (const child of parent.children as Nodes[]) {
    if (child.type === 'text') {
      const parts = split(child, hrefs);
      if (parts) {
        next.push(...parts);
        changed = true;
        continue;
      }
    } else walk(child, hrefs);
    next.push(child);
  }
  if (changed) (parent as { children: Nodes[] }).children = next;
}

/** The link of each source, by its number less one (undefined: not an http(s) address, so no link). */
export function citationHrefs(sources: readonly WebSourceRecord[]): (string | undefined)[] {
  return sources.map((s) => safeHref(s.url));
}

/** `[n]` -> a link to hrefs[n - 1], in place. */
export function citeSources(tree: Root, hrefs: readonly (string | undefined)[]): void {
  walk(tree, hrefs);
}

/** remark plugin: `[n]` -> a link to sources[n - 1]. */
export function remarkCitations(sources: readonly WebSourceRecord[]) {
  const hrefs = citationHrefs(sources);
  return () => (tree: Root) => {
    walk(tree, hrefs);
  };
}
