/**
 * Live queries of the conversation domain: the conversation list and one conversation's page (the messages along
 * its active branch path, with their alternatives and canContinue, and the live text of a reply that is streaming).
 */
import { asyncScheduler, defer, filter, from, map, Observable, scan, startWith, switchMap, throttleTime } from 'rxjs';
import type { ConversationSummary, ConversationUpdate, ConversationView, LiveMessageText, MessageView, QueuedView } from '../../../protocol/engine';
import { applyConversationUpdate } from '../../../protocol/conversation-updates';
import type { ConversationRow, MessageRow } from '../../../events/model';
import { queuedViews } from '../replies/queue-store';
import { withCitations } from '../../../shared/web-context';
import { withImagePrompts } from '../media/image-prompts';
import { STREAM_THROTTLE_MS, type EngineCore } from '../../core';
import { activePath, alternativesOf, buildTree, canContinue, tailPath } from '../../../shared/history';
import { replyText, type LiveReply } from '../replies/reply-runner';
import type { QueryHandlers } from '../../query-types';
import { loadFolderLinks } from '../folders/queries';
import { liveReplies } from '../replies/live';

/** Messages a long conversation's first view shows before the rest is loaded (a few screens' worth). */
export const FIRST_VIEW_MESSAGES = 100;
/** How long after a partial first view the whole page is read. */
export const WHOLE_VIEW_DELAY_MS = 250;

export function byTime(a: MessageRow, b: MessageRow): number {
  return a.timestamp - b.timestamp || a.id - b.id;
}

function promptText(prompt: MessageRow['prompt']): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

interface ConversationRows {
  conversation: ConversationRow;
  /** The messages along the active branch path (src/shared/history.ts), built once per load. */
  messages: MessageRow[];
  /** Alternatives info of the path's messages that have alternatives. */
  alternatives: Map<number, { index: number; count: number }>;
  /** The path's messages' children ids, in time order (spec 000 section 3 childMessages), from the same tree. */
  children: Map<number, number[]>;
  queue: QueuedView[];
  /** Only the newest messages (the first view of a long conversation). */
  partial: boolean;
}

export function conversationQueries(core: EngineCore): Pick<QueryHandlers, 'conversations' | 'conversation' | 'conversationUpdates'> {
  async function loadConversations(): Promise<ConversationSummary[]> {
    await core.whenStarted();
    if (!core.storageOk) return [];
    const rows = await core.db.conversations.orderBy('updatedAt').reverse().toArray();
    // Deleted ones (restorable until purged) are hidden; pinned ones lead, most recently pinned first.
    const visible = rows.filter((c) => c.deletedAt === undefined);
    const pinned = visible.filter((c) => c.pinnedAt !== undefined).sort((a, b) => (b.pinnedAt ?? 0) - (a.pinnedAt ?? 0));
    const others = visible.filter((c) => c.pinnedAt === undefined);
    const folderOf = await loadFolderLinks(core.db);
    return [...pinned, ...others].map((c) => ({
      id: c.id,
      slug: c.slug,
      name: c.name,
      updatedAt: c.updatedAt,
      latestMessage: c.latestMessage,
      pinned: c.pinnedAt !== undefined,
      folderId: folderOf.get(c.id) ?? null,
    }));
  }

  /**
   * A conversation's page rows. With `tail`, only its newest `tail` messages are read (by the message id, which
   * grows with time: the conversationSlug index's newest keys, then those rows): a conversation that has no more is whole; a longer
   * one gives a partial page (its active path guessed from them, src/shared/history.ts tailPath), or
   * 'full' when the guess cannot be made, and the caller loads it whole next.
   */
  async function loadConversation(slug: string, tail?: number): Promise<ConversationRows | null | 'full'> {
    await core.whenStarted();
    if (!core.storageOk) return null;
    const conversation = await core.db.conversations.where('slug').equals(slug).first();
    if (!conversation) return null;
    const bySlug = core.db.messages.where('conversationSlug').equals(slug);
    let rows: MessageRow[];
    let more = false;
    if (tail === undefined) rows = await bySlug.toArray();
    else {
      // The newest ids alone first (a key cursor walking the index back, no values), then only those rows.
      const ids = await bySlug.reverse().limit(tail + 1).primaryKeys();
      more = ids.length > tail;
      rows = (await core.db.messages.bulkGet(more ? ids.slice(0, tail) : ids)).filter((m): m is MessageRow => m !== undefined);
    }
    const queue = await queuedViews(core, slug);
    if (more) {
      const path = tailPath(rows);
      return path === null ? 'full' : { conversation, messages: path, alternatives: new Map(), children: childrenByParent(rows), queue, partial: true };
    }
    rows.sort(byTime);
    // One pass over the rows (O(n)); the streaming ticks below reuse it.
    const tree = buildTree(rows);
    const messages = activePath(tree);
    const alternatives = new Map<number, { index: number; count: number }>();
    const children = new Map<number, number[]>();
    for (const m of messages) {
      const info = alternativesOf(tree, m);
      if (info) alternatives.set(m.id, info);
      const below = tree.children.get(m.id);
      if (below) children.set(m.id, below.map((c) => c.id));
    }
    return { conversation, messages, alternatives, children, queue, partial: false };
  }

  /** The ids of the replies streaming in a conversation, as one key (a reply started or ended when it changes). */
  function liveKey(slug: string): string {
    let key = '';
    for (const r of liveReplies(core).live.values()) if (r.slug === slug) key += `${r.messageId},`;
    return key;
  }

  /** A live reply's text and state, read from its parser here, at the throttled publish, not per network chunk. */
  function liveText(live: LiveReply): LiveMessageText {
    const { text, thinking } = replyText(live);
    const started = live.parser.text.length > 0 || live.parser.thinking.length > 0 || live.continuation !== undefined;
    return { id: live.messageId, text, thinking, status: started ? 'streaming' : 'pending' };
  }

  function conversationView(rows: ConversationRows | null): ConversationView | null {
    if (!rows) return null;
    const pending = liveKey(rows.conversation.slug) !== '';
    const maxTokens = core.preferences$.value.maxTokens;
    const messages = rows.messages.map((m): MessageView => {
      const alternatives = rows.alternatives.get(m.id);
      const childMessages = rows.children.get(m.id) ?? [];
      const tree = alternatives ? { alternatives, childMessages } : { childMessages };
      const live = liveReplies(core).live.get(m.id);
      if (live) return { ...m, ...tree, ...liveText(live) };
      return { ...m, ...tree, text: promptText(m.prompt), canContinue: !pending && canContinue(m, maxTokens) };
    });
    return { conversation: rows.conversation, messages: withImagePrompts(withCitations(messages)), pending, queue: rows.queue, ...(rows.partial ? { partial: true } : {}) };
  }

  /** Children ids by parent among some rows (a partial page's, by their parentMessageId), in time order. */
  function childrenByParent(rows: readonly MessageRow[]): Map<number, number[]> {
    const out = new Map<number, number[]>();
    for (const m of [...rows].sort(byTime)) {
      if (m.parentMessageId === null) continue;
      const list = out.get(m.parentMessageId);
      if (list) list.push(m.id);
      else out.set(m.parentMessageId, [m.id]);
    }
    return out;
  }

  /**
   * A page as updates: a whole view after each change of its read model (loads never overlap: changes during a
   * load give one more load after it) and when a reply starts or ends; between them, every 150 ms at most, only
   * the streaming replies' text. A live tick while a load runs is skipped: the load's view carries it.
   */
  function conversationUpdates(slug: string): Observable<ConversationUpdate> {
    return new Observable<ConversationUpdate>((subscriber) => {
      let rows: ConversationRows | null | undefined;
      let loading = false;
      let again = false;
      let closed = false;
      let shownLive = '';
      let tailFirst = true;
      const sendView = () => {
        shownLive = liveKey(slug);
        subscriber.next({ kind: 'view', view: conversationView(rows ?? null) });
      };
      const load = () => {
        if (loading) {
          again = true;
          return;
        }
        loading = true;
        // The first view of a long conversation shows its newest messages first, then all of it.
        const tail = tailFirst ? FIRST_VIEW_MESSAGES : undefined;
        tailFirst = false;
        loadConversation(slug, tail).then(
          (loaded) => {
            loading = false;
            if (closed) return;
            if (again || loaded === 'full') {
              again = false;
              load();
              return;
            }
            rows = loaded;
            sendView();
            // The rest a moment later, so that reading it does not compete with the tab painting the first view.
            if (loaded?.partial) setTimeout(() => closed || load(), WHOLE_VIEW_DELAY_MS);
          },
          (error: unknown) => subscriber.error(error),
        );
      };
      const changes = core.changes$.pipe(filter((c) => c.all || c.slugs.has(slug))).subscribe(load);
      const live = liveReplies(core).live$
        .pipe(
          filter((s) => s === slug),
          throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        )
        .subscribe(() => {
          if (rows === undefined || loading) return;
          if (liveKey(slug) !== shownLive) {
            sendView();
            return;
          }
          const messages: LiveMessageText[] = [];
          for (const r of liveReplies(core).live.values()) if (r.slug === slug) messages.push(liveText(r));
          if (messages.length > 0) subscriber.next({ kind: 'live', messages });
        });
      load();
      return () => {
        closed = true;
        changes.unsubscribe();
        live.unsubscribe();
      };
    });
  }

  return {
    conversations: (): Observable<ConversationSummary[]> =>
      core.changes$.pipe(
        filter((c) => c.all || c.conversations),
        startWith(null),
        throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        switchMap(() => defer(() => from(loadConversations()))),
      ),
    conversationUpdates: ({ slug }) => conversationUpdates(slug),
    /** The page as one view per update, whole views only (the engine's own readers: export, tests). */
    conversation: ({ slug }): Observable<ConversationView | null> =>
      conversationUpdates(slug).pipe(
        scan((view: ConversationView | null | undefined, update: ConversationUpdate) => applyConversationUpdate(view, update), undefined),
        filter((view) => view === null || (view !== undefined && !view.partial)),
        map((view) => view ?? null),
      ),
  };
}
