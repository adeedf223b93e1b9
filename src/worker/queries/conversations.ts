/**
 * Live queries of the conversation domain: the conversation list and one conversation's page (the messages along
 * its active branch path, with their alternatives and canContinue, and the live text of a reply that is streaming).
 */
import { withCitations } from '../services/web-context';
import { asyncScheduler, combineLatest, defer, filter, from, map, startWith, switchMap, throttleTime, type Observable } from 'rxjs';
import type { ConversationSummary, ConversationView, MessageView } from '../../protocol/engine';
import type { ConversationRow, MessageRow } from '../../events/model';
import { STREAM_THROTTLE_MS, type EngineCore } from '../core';
import { activePath, alternativesOf, buildTree, canContinue } from '../services/history';
import { replyText } from '../services/reply-runner';
import type { QueryHandlers } from './types';

export function byTime(a: MessageRow, b: MessageRow): number {
  return a.timestamp - b.timestamp || a.id - b.id;
}

function promptText(prompt: MessageRow['prompt']): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

interface ConversationRows {
  conversation: ConversationRow;
  /** The messages along the active branch path (src/worker/services/history.ts), built once per load. */
  messages: MessageRow[];
  /** Alternatives info of the path's messages that have alternatives. */
  alternatives: Map<number, { index: number; count: number }>;
}

export function conversationQueries(core: EngineCore): Pick<QueryHandlers, 'conversations' | 'conversation'> {
  async function loadConversations(): Promise<ConversationSummary[]> {
    await core.whenStarted();
    if (!core.storageOk) return [];
    const rows = await core.db.conversations.orderBy('updatedAt').reverse().toArray();
    // Deleted ones (restorable until purged) are hidden; pinned ones lead, most recently pinned first.
    const visible = rows.filter((c) => c.deletedAt === undefined);
    const pinned = visible.filter((c) => c.pinnedAt !== undefined).sort((a, b) => (b.pinnedAt ?? 0) - (a.pinnedAt ?? 0));
    const others = visible.filter((c) => c.pinnedAt === undefined);
    return [...pinned, ...others].map((c) => ({
      id: c.id,
      slug: c.slug,
      name: c.name,
      updatedAt: c.updatedAt,
      latestMessage: c.latestMessage,
      pinned: c.pinnedAt !== undefined,
    }));
  }

  async function loadConversation(slug: string): Promise<ConversationRows | null> {
    await core.whenStarted();
    if (!core.storageOk) return null;
    const conversation = await core.db.conversations.where('slug').equals(slug).first();
    if (!conversation) return null;
    const rows = await core.db.messages.where('conversationSlug').equals(slug).toArray();
    rows.sort(byTime);
    // One pass over the rows (O(n)); the streaming ticks below reuse it.
    const tree = buildTree(rows);
    const messages = activePath(tree);
    const alternatives = new Map<number, { index: number; count: number }>();
    for (const m of messages) {
      const info = alternativesOf(tree, m);
      if (info) alternatives.set(m.id, info);
    }
    return { conversation, messages, alternatives };
  }

  function conversationView(rows: ConversationRows | null): ConversationView | null {
    if (!rows) return null;
    let pending = false;
    for (const r of core.live.values()) if (r.slug === rows.conversation.slug) pending = true;
    const maxTokens = core.preferences$.value.maxTokens;
    const messages = rows.messages.map((m): MessageView => {
      const alternatives = rows.alternatives.get(m.id);
      const tree = alternatives ? { alternatives } : {};
      const live = core.live.get(m.id);
      if (live) {
        // Read the parser only here, at the throttled publish, not after every network chunk.
        const { text, thinking } = replyText(live);
        const started = live.parser.text.length > 0 || live.parser.thinking.length > 0;
        return { ...m, ...tree, text, thinking, status: started ? ('streaming' as const) : live.continuation ? ('streaming' as const) : ('pending' as const) };
      }
      return { ...m, ...tree, text: promptText(m.prompt), canContinue: !pending && canContinue(m, maxTokens) };
    });
    return { conversation: rows.conversation, messages: withCitations(messages), pending };
  }

  return {
    conversations: (): Observable<ConversationSummary[]> =>
      core.changes$.pipe(
        filter((c) => c.all || c.conversations),
        startWith(null),
        throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        switchMap(() => defer(() => from(loadConversations()))),
      ),
    conversation: ({ slug }): Observable<ConversationView | null> => {
      const rows$ = core.changes$.pipe(
        filter((c) => c.all || c.slugs.has(slug)),
        startWith(null),
        switchMap(() => defer(() => from(loadConversation(slug)))),
      );
      const live$ = core.live$.pipe(filter((s) => s === slug), startWith(slug));
      return combineLatest([rows$, live$]).pipe(
        throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }),
        map(([rows]) => conversationView(rows)),
      );
    },
  };
}
