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
import { appendContext, userContent } from './web-context';
import { filesContext } from './attach-step';
import type { ChatMessage } from '../protocol/api';
import type { MessageRow } from '../events/model';


/** Parent key of the conversation's first messages. */
const ROOT = 0;

/** A read-only lookup by key (a Map's `get`, without building a Map where an index into arrays does). */
export interface Lookup<K, V> {
  get(key: K): V | undefined;
}

export interface MessageTree {
  /** The messages, in time order (timestamp, then id). */
  readonly ordered: readonly MessageRow[];
  readonly byId: Lookup<number, MessageRow>;
  /** Effective parent id of each message (ROOT = 0 for none). */
  readonly parentOf: Lookup<number, number>;
  /** Children of a message id (ROOT for the first level), in time order; undefined when it has none. */
  readonly children: Lookup<number, MessageRow[]>;
  /** Members of each alternative group, by branchIndex then time. */
  readonly groups: ReadonlyMap<string, MessageRow[]>;
  /** The active branch path (see activePath). */
  activePath(): MessageRow[];
}

export function byTime(a: MessageRow, b: MessageRow): number {
  return a.timestamp - b.timestamp || a.id - b.id;
}

/**
 * Builds the tree. `messages` must be in time order (timestamp, then id), as the conversation query loads them.
 * Positions, not objects: one Map (id -> position) and typed arrays for parents and child lists (first child,
 * next sibling), so a long line allocates no array per message.
 */
export function buildTree(messages: readonly MessageRow[]): MessageTree {
  const n = messages.length;
  const at = new Map<number, number>();
  for (let i = 0; i < n; i++) at.set((messages[i] as MessageRow).id, i);
  // Positions: parent (-1 = root), first child, last child, next sibling (-1 = none). Index n is the root.
  const parent = new Int32Array(n);
  const first = new Int32Array(n + 1).fill(-1);
  const last = new Int32Array(n + 1).fill(-1);
  const next = new Int32Array(n).fill(-1);
  const groups = new Map<string, MessageRow[]>();
  const groupParent = new Map<string, number>();
  let chainTail = -1;
  for (let i = 0; i < n; i++) {
    const m = messages[i] as MessageRow;
    let p: number;
    const group = m.alternativeGroup;
    const explicit = m.parentMessageId === null || m.parentMessageId === m.id ? undefined : at.get(m.parentMessageId);
    if (explicit !== undefined) p = explicit;
    else if (group !== null && groupParent.has(group)) p = groupParent.get(group) as number;
    else {
      p = chainTail;
      chainTail = i;
    }
    if (group !== null) {
      if (!groupParent.has(group)) groupParent.set(group, p);
      let members = groups.get(group);
      if (members === undefined) groups.set(group, (members = []));
      members.push(m);
    }
    parent[i] = p;
    const slot = p === -1 ? n : p;
    if (last[slot] === -1) first[slot] = i;
    else next[last[slot] as number] = i;
    last[slot] = i;
  }
  for (const members of groups.values()) if (members.length > 1) members.sort((a, b) => a.branchIndex - b.branchIndex || byTime(a, b));
  const rowOf = (id: number): MessageRow | undefined => {
    const i = at.get(id);
    return i === undefined ? undefined : messages[i];
  };
  return {
    ordered: messages,
    byId: { get: rowOf },
    parentOf: {
      get(id) {
        const i = at.get(id);
        if (i === undefined) return undefined;
        const p = parent[i] as number;
        return p === -1 ? ROOT : (messages[p] as MessageRow).id;
      },
    },
    children: {
      get(id) {
        const slot = id === ROOT ? n : at.get(id);
        if (slot === undefined || first[slot] === -1) return undefined;
        const out: MessageRow[] = [];
        for (let c = first[slot] as number; c !== -1; c = next[c] as number) out.push(messages[c] as MessageRow);
        return out;
      },
    },
    groups,
    activePath() {
      // At each level: every active child (several when a multi-model reply stored one message per model), or,
      // when none is marked active (a group whose active member was lost), the newest member of the last child's
      // group. The path goes on below the last shown child that has children. Each message has one parent, so
      // what hangs from the root has no cycle; the length guard is for damaged data all the same.
      const path: MessageRow[] = [];
      let slot = n;
      while (first[slot] !== -1 && path.length <= n) {
        let below = -1;
        let lastChild = -1;
        let shown = 0;
        for (let c = first[slot] as number; c !== -1; c = next[c] as number) {
          lastChild = c;
          const m = messages[c] as MessageRow;
          if (!m.isActiveBranch) continue;
          shown++;
          path.push(m);
          if (first[c] !== -1) below = c;
        }
        if (shown === 0) {
          const m = messages[lastChild] as MessageRow;
          const members = m.alternativeGroup === null ? undefined : groups.get(m.alternativeGroup);
          const fallback = members?.at(-1) ?? m;
          path.push(fallback);
          const f = at.get(fallback.id) as number;
          below = first[f] === -1 ? -1 : f;
        }
        if (below === -1) break;
        slot = below;
      }
      return path;
    },
  };
}

/** The messages along the active branch path, from the first message down (what the page shows). */
export function activePath(tree: MessageTree): MessageRow[] {
  return tree.activePath();
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
  // A user message's scraped pages and web search results go with it (src/shared/web-context.ts).
  if (m.role !== 'user') return { role: m.role, content: m.prompt };
  // Its files too, after its own words (documents and image descriptions: src/shared/attach-step.ts).
  return { role: m.role, content: userContent(m.files ? { ...m, prompt: appendContext(m.prompt, filesContext(m.files)) } : m) };
}

/** The chat messages a request sends for `path` (in order): finished messages only. */
export function requestMessages(path: readonly MessageRow[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of path) if (isHistory(m)) out.push(toChatMessage(m));
  return out;
}

/** A new assistant message waiting for its reply, under `parent` (the prompt it answers), on the active branch. */
export function pendingAssistant(id: number, parent: MessageRow, model: string, at: number): MessageRow {
  return {
    id,
    conversationSlug: parent.conversationSlug,
    timestamp: at,
    role: 'assistant',
    prompt: '',
    model,
    mode: 'chat',
    status: 'pending',
    parentMessageId: parent.id,
    alternativeGroup: null,
    branchIndex: 0,
    isActiveBranch: true,
    branchDepth: parent.branchDepth,
    updatedAt: at,
  };
}

/**
 * The end of the active path, from a conversation's newest messages alone (what a long conversation shows first,
 * before all of it is loaded): from the newest message up through the parents present, with the active messages
 * beside each one (a multi-model request's replies). null when the newest message is on an inactive branch: then
 * the guess would show the wrong branch, so there is none.
 */
export function tailPath(rows: readonly MessageRow[]): MessageRow[] | null {
  const sorted = [...rows].sort(byTime);
  const byId = new Map(sorted.map((m) => [m.id, m]));
  const activeChildren = new Map<number, MessageRow[]>();
  for (const m of sorted) {
    if (!m.isActiveBranch || m.parentMessageId === null || !byId.has(m.parentMessageId)) continue;
    const list = activeChildren.get(m.parentMessageId);
    if (list) list.push(m);
    else activeChildren.set(m.parentMessageId, [m]);
  }
  const up: MessageRow[] = [];
  const seen = new Set<number>();
  for (let m = sorted.at(-1); m !== undefined && !seen.has(m.id); m = m.parentMessageId === null ? undefined : byId.get(m.parentMessageId)) {
    if (!m.isActiveBranch) return null;
    seen.add(m.id);
    up.push(m);
  }
  up.reverse();
  const path: MessageRow[] = up.slice(0, 1);
  for (let i = 1; i < up.length; i++) path.push(...(activeChildren.get((up[i - 1] as MessageRow).id) ?? [up[i] as MessageRow]));
  return path;
}
