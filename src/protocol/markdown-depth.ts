/**
 * The second guard against nesting (the first is ./markdown-guard.ts, on the text): after parsing, a Markdown tree
 * (mdast) is cut at `MARKDOWN_TREE_DEPTH` levels, and what is below becomes its plain words, so that whatever
 * renders the tree (remark-rehype, React, the DOM, the PDF layout, all recursive) never goes deeper than that.
 * Iterative: it runs on trees too deep for a recursive walk. Pure.
 */
import type { List, ListItem, Nodes, Paragraph, Parent, Root, Text } from 'mdast';

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

/** Blocks whose words stay together when a tree is cut: each becomes one paragraph (or list item). */
const LEAF_BLOCKS = new Set([...PHRASING_PARENTS, 'code', 'math', 'html', 'table', 'thematicBreak']);

/** The words of each leaf block under a node, in reading order: iterative, any depth. */
function leafTexts(node: Nodes & Parent): string[] {
  const out: string[] = [];
  const stack: Nodes[] = [...(node.children as Nodes[])].reverse();
  while (stack.length > 0) {
    const n = stack.pop() as Nodes;
    if (LEAF_BLOCKS.has(n.type) || !hasChildren(n)) {
      const words = plainWords(n);
      if (words !== '') out.push(words);
      continue;
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as Nodes);
  }
  return out;
}

/**
 * What replaces the children of a node cut at the depth limit: its words, in the shape its type allows (a list
 * keeps one item per block below it, a list item its first block and a list of the others, anything else one
 * paragraph per block). At most four levels below the cut node (a list, its items, their paragraphs, the text).
 */
function flatChildren(node: Nodes & Parent): Parent['children'] {
  if (PHRASING_PARENTS.has(node.type)) return [{ type: 'text', value: plainWords(node) } satisfies Text];
  const paragraphs = leafTexts(node).map((value): Paragraph => ({ type: 'paragraph', children: [{ type: 'text', value }] }));
  const items = (ps: Paragraph[]): ListItem[] => ps.map((p) => ({ type: 'listItem', spread: false, children: [p] }));
  if (node.type === 'list') return items(paragraphs.length > 0 ? paragraphs : [{ type: 'paragraph', children: [] }]);
  // A list item keeps its first block, and the rest as one list under it.
  if (node.type === 'listItem' && paragraphs.length > 1) {
    const [first, ...rest] = paragraphs as [Paragraph, ...Paragraph[]];
    return [first, { type: 'list', ordered: false, spread: false, children: items(rest) } satisfies List];
  }
  return paragraphs;
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
