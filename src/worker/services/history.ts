/**
 * The message tree of a conversation (spec 000 sections 3 and 4: parentMessageId, alternativeGroup, branchIndex,
 * isActiveBranch, branchDepth) and the paths through it: the active path the page shows, the path up to one
 * message, and the chat history a request sends along it. Pure functions over rows; the commands and the
 * conversation query share them, so what is shown is what is sent.
 *
 * Effective parent of a message, in this order:
 *  - its parentMessageId, when that message exists in the conversation;
 *  - for a member of an alternative group already seen, the parent of the group (the members are siblings);
 *  - otherwise the previous such "parentless" message in time order. Messages from before schema v41 have
 *    parentMessageId null (the v41 upgrade sets it so), and they form one chain in time order; a conversation's
 *    first message has no predecessor and hangs from the root.
 * The engine always writes explicit parents for new messages, so the fallback only reads old data.
 *
 * Building the tree is one pass over the messages in time order (O(n)): a 10,000-message conversation opens fast.
 */
import type { ChatMessage } from '../../protocol/api';
import type { MessageRow } from '../../events/model';

/** Spec 000 section 4 / 9: at most 10 alternatives per group. */
export const MAX_ALTERNATIVES = 10;

/** Parent key of the conversation's first messages. */
const ROOT = 0;

export interface MessageTree {
  /** The messages, in time order (timestamp, then id). */
  readonly ordered: readonly MessageRow[];
  readonly byId: ReadonlyMap<number, MessageRow>;
  /** Effective parent id of each message (ROOT = 0 for none). */
  readonly parentOf: ReadonlyMap<number, number>;
  /** Children of each message id (ROOT for the first level), in time order. */
  readonly children: ReadonlyMap<number, MessageRow[]>;
  /** Members of each alternative group, by branchIndex then time. */
  readonly groups: ReadonlyMap<string, MessageRow[]>;
}

export function byTime(a: MessageRow, b: MessageRow): number {
  return a.timestamp - b.timestamp || a.id - b.id;
}

/** Builds the tree. `messages` must be in time order (timestamp, then id), as the conversation query loads them. */
export function buildTree(messages: readonly MessageRow[]): MessageTree {
  const byId = new Map<number, MessageRow>();
  for (const m of messages) byId.set(m.id, m);
  const parentOf = new Map<number, number>();
  const children = new Map<number, MessageRow[]>();
  const groups = new Map<string, MessageRow[]>();
  const groupParent = new Map<string, number>();
  let chainTail = ROOT;
  for (const m of messages) {
    let parent: number;
    const group = m.alternativeGroup;
    if (m.parentMessageId !== null && m.parentMessageId !== m.id && byId.has(m.parentMessageId)) parent = m.parentMessageId;
    else if (group !== null && groupParent.has(group)) parent = groupParent.get(group) as number;
    else {
      parent = chainTail;
      chainTail = m.id;
    }
    if (group !== null) {
      if (!groupParent.has(group)) groupParent.set(group, parent);
      let members = groups.get(group);
      if (members === undefined) groups.set(group, (members = []));
      members.push(m);
    }
    parentOf.set(m.id, parent);
    let list = children.get(parent);
    if (list === undefined) children.set(parent, (list = []));
    list.push(m);
  }
  for (const members of groups.values()) if (members.length > 1) members.sort((a, b) => a.branchIndex - b.branchIndex || byTime(a, b));
  return { ordered: messages, byId, parentOf, children, groups };
}

/**
 * The messages shown at one level: every active child (several when a multi-model reply stored one message per
 * model), or, when no child is marked active (a group whose active member was lost), the last member of the
 * newest group. The path continues from the last shown message that has children.
 */
function shownChildren(tree: MessageTree, list: readonly MessageRow[]): MessageRow[] {
  const active = list.filter((m) => m.isActiveBranch);
  if (active.length > 0) return active;
  const last = list.at(-1) as MessageRow;
  const members = last.alternativeGroup === null ? undefined : tree.groups.get(last.alternativeGroup);
  return [members?.at(-1) ?? last];
}

/** The messages along the active branch path, from the first message down (what the page shows). */
export function activePath(tree: MessageTree): MessageRow[] {
  const path: MessageRow[] = [];
  const seen = new Set<number>();
  let level = tree.children.get(ROOT);
  while (level !== undefined && level.length > 0) {
    const shown = shownChildren(tree, level);
    let next: MessageRow[] | undefined;
    for (const m of shown) {
      if (seen.has(m.id)) return path; // a cycle in damaged data: stop rather than loop
      seen.add(m.id);
      path.push(m);
      const kids = tree.children.get(m.id);
      if (kids !== undefined && kids.length > 0) next = kids;
    }
    level = next;
  }
  return path;
}

/** The path from the first message down to `messageId` (inclusive); empty when the message is not in the tree. */
export function pathTo(tree: MessageTree, messageId: number): MessageRow[] {
  const path: MessageRow[] = [];
  let id = messageId;
  const seen = new Set<number>();
  while (id !== ROOT && !seen.has(id)) {
    const m = tree.byId.get(id);
    if (m === undefined) return [];
    seen.add(id);
    path.push(m);
    id = tree.parentOf.get(id) ?? ROOT;
  }
  return path.reverse();
}

/** The effective parent of a message as a row id, or null for a first message. */
export function parentId(tree: MessageTree, messageId: number): number | null {
  const p = tree.parentOf.get(messageId);
  return p === undefined || p === ROOT ? null : p;
}

/** A message and everything below it, on every branch. */
export function subtree(tree: MessageTree, messageId: number): MessageRow[] {
  const out: MessageRow[] = [];
  const stack = [messageId];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const id = stack.pop() as number;
    if (seen.has(id)) continue;
    seen.add(id);
    const m = tree.byId.get(id);
    if (m) out.push(m);
    for (const c of tree.children.get(id) ?? []) stack.push(c.id);
  }
  return out;
}

/** Position (1-based) and size of a message's alternative group; null when it has no alternatives. */
export function alternativesOf(tree: MessageTree, m: MessageRow): { index: number; count: number } | null {
  if (m.alternativeGroup === null) return null;
  const members = tree.groups.get(m.alternativeGroup);
  if (members === undefined || members.length < 2) return null;
  return { index: members.indexOf(m) + 1, count: members.length };
}

/** Spec 000 sections 4 and 9: a reply can be continued when its output came within 10% of max tokens. */
export const CONTINUE_THRESHOLD = 0.1;

/** canContinue: a finished, unfailed reply whose output tokens are within 10% of max tokens. */
export function canContinue(m: MessageRow, maxTokens: number): boolean {
  return (
    m.role === 'assistant' &&
    m.status === 'done' &&
    !m.hasError &&
    typeof m.outputTokens === 'number' &&
    maxTokens > 0 &&
    m.outputTokens >= maxTokens * (1 - CONTINUE_THRESHOLD)
  );
}

/** Whether a message is sent to the model as history: finished, not failed (a partial reply counts). */
export function isHistory(m: MessageRow): boolean {
  return m.status === 'done' && !m.hasError && m.role !== 'tool';
}

export function toChatMessage(m: MessageRow): ChatMessage {
  return { role: m.role, content: m.prompt };
}

/** The chat messages a request sends for `path` (in order): finished messages only. */
export function requestMessages(path: readonly MessageRow[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of path) if (isHistory(m)) out.push(toChatMessage(m));
  return out;
}
