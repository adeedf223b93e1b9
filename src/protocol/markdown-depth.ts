/**
 * The second guard against nesting (the first is ./markdown-guard.ts, on the text): after parsing, a Markdown tree
 * (mdast) is cut at `MARKDOWN_TREE_DEPTH` levels, and what is below becomes its plain words, so that whatever
 * renders the tree (remark-rehype, React, the DOM, the PDF layout, all recursive) never goes deeper than that.
 * Iterative: it runs on trees too deep for a recursive walk. Pure.
 */
import type { Nodes, Paragraph, Parent, Root, Text } from 'mdast';

/** Levels below the root a rendered Markdown tree may have (a reply people write uses fewer than 15). */
export const MARKDOWN_TREE_DEPTH = 24;

/** Node types whose children are inline (phrasing) content. */
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'tableCell', 'emphasis', 'strong', 'delete', 'link', 'linkReference']);
/** Node types that only hold fixed children (rows, cells): never cut there, their children are cut instead. */
const STRUCTURAL = new Set(['table', 'tableRow']);

function hasChildren(node: Nodes): node is Nodes & Parent {
  return 'children' in node && Array.isArray(node.children);
}

/** The words under a node, joined with spaces between blocks: iterative, any depth. */
export function plainWords(node: Nodes): string {
  const out: string[] = [];
  const stack: Nodes[] = [node];
  while (stack.length > 0) {
    const n = stack.pop() as Nodes;
    if ('value' in n && typeof n.value === 'string') out.push(n.value);
    else if (n.type === 'break') out.push('\n');
    if (hasChildren(n)) {
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as Nodes);
      if (!PHRASING_PARENTS.has(n.type) && n !== node) out.push(' ');
    }
  }
  return out.join('').replace(/[ \t]+/g, ' ').trim();
}

/** What replaces the children of a node cut at the depth limit: its words, in the shape its type allows. */
function flatChildren(node: Nodes & Parent): Parent['children'] {
  const text: Text = { type: 'text', value: plainWords(node) };
  if (PHRASING_PARENTS.has(node.type)) return [text];
  const paragraph: Paragraph = { type: 'paragraph', children: [text] };
  if (node.type === 'list') return [{ type: 'listItem', spread: false, children: [paragraph] }];
  return [paragraph];
}

/** Cuts the tree at `maxDepth` levels (in place). Returns whether anything was cut. */
export function capTreeDepth(root: Root, maxDepth: number = MARKDOWN_TREE_DEPTH): boolean {
  let cut = false;
  const stack: Array<[Nodes, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [Nodes, number];
    if (!hasChildren(node)) continue;
    if (depth >= maxDepth && !STRUCTURAL.has(node.type) && node.children.some(hasChildren)) {
      (node as Parent).children = flatChildren(node);
      cut = true;
      continue;
    }
    for (const child of node.children) stack.push([child as Nodes, depth + 1]);
  }
  return cut;
}
