/**
 * Conversation management (issue 6 items 7 and 11): rename, delete with undo, pin, the per-conversation system
 * prompt, generated titles (spec 000 sections 3 and 7) and search.
 *
 * Delete is two-step so that Undo is natural: `conversation.deleted` hides the conversation (deletedAt) but keeps
 * its messages; `conversation.restored` shows it again; when the undo window has passed, `conversation.purged`
 * removes the row and its messages. The purge is appended by a timer, and on engine start for any deletion whose
 * window passed while no engine ran.
 */
import { firstChars, promptText } from '../../../projections/projection';
import { TITLE_MAX_CHARS } from '../../../protocol/api';
import type { ActionResult, ConversationHandlers, SearchHit } from '../../../protocol/engine';
import { makeEvent, type EventPayloads, type EventType } from '../../../events/catalogue';
import type { ConversationRow } from '../../../events/model';
import type { EngineCore, Room, RoomKind } from '../../core';
import { gateway } from '../../infra/gateway';
import { DURATION } from '../../../shared/messages';
import { EngineSearch } from './search';
import { byTime } from './queries';
import { liveReplies } from '../replies/live';
import { INSTRUCTIONS_MAX_CHARS } from '../instructions/system-message';

export { INSTRUCTIONS_MAX_CHARS };

/** How long a deleted conversation can be brought back (the deletion notice stays as long). */
export const UNDO_WINDOW_MS = DURATION.medium;
/** Characters of the conversation's opening sent for a title. */
export const TITLE_CONTENT_CHARS = 4000;

// Our own wording (the spec names no notice for these).
export const CONVERSATION_DELETED = 'Conversation deleted';
export const CONVERSATIONS_DELETED = 'Conversations deleted';
/** The text of the notice of a bulk delete. */
export const deletedCountText = (n: number): string => (n === 1 ? '1 conversation' : `${n} conversations`);
export const UNDO = 'Undo';
export const NAME_REQUIRED = 'A name is required';
export const CONVERSATION_NOT_FOUND = 'Conversation not found';
export const TITLE_FAILED = 'Could not generate a title';

/** A conversation name as stored: whitespace collapsed, at most 150 characters (spec 000 section 9). */
export function cleanName(name: string): string {
  return firstChars(name.replace(/\s+/g, ' ').trim(), TITLE_MAX_CHARS).trim();
}

/** The opening of a conversation as sent for its title: role-labelled turns, at most TITLE_CONTENT_CHARS. */
export function titleContent(messages: readonly { role: string; prompt: Parameters<typeof promptText>[0] }[]): string {
  let out = '';
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const text = promptText(m.prompt).trim();
    if (text === '') continue;
    out += `${out === '' ? '' : '\n\n'}${m.role === 'user' ? 'User' : 'Assistant'}: ${text}`;
    if (out.length >= TITLE_CONTENT_CHARS) break;
  }
  return firstChars(out, TITLE_CONTENT_CHARS);
}

/**
 * The conversations room's per-engine state: the purge timers of deleted conversations. Disposed with the engine:
 * the timers stop, and a purge already on its way writes nothing (the next engine purges at its start).
 */
export class ConversationsRoom implements Room {
  private readonly purgeTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private disposed = false;

  /** Deletions waiting for their undo window to pass (tests). */
  get pendingPurges(): number {
    return this.purgeTimers.size;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.purgeTimers.values()) clearTimeout(timer);
    this.purgeTimers.clear();
  }

  /** Purge `slug` once its undo window (from `deletedAt`) has passed, unless it was restored meanwhile. */
  schedulePurge(slug: string, deletedAt: number, purge: () => Promise<void>): void {
    if (this.disposed) return;
    this.cancelPurge(slug);
    const wait = Math.max(0, deletedAt + UNDO_WINDOW_MS - Date.now());
    this.purgeTimers.set(
      slug,
      setTimeout(() => {
        this.purgeTimers.delete(slug);
        purge().catch((error: unknown) => {
          // A database closed by the dispose is the engine ending: the next engine purges at its start.
          if (!this.disposed) console.error('Deleted conversation could not be purged', error);
        });
      }, wait),
    );
  }

  cancelPurge(slug: string): void {
    clearTimeout(this.purgeTimers.get(slug));
    this.purgeTimers.delete(slug);
  }
}

export const CONVERSATIONS_ROOM: RoomKind<ConversationsRoom> = { name: 'conversations', create: () => new ConversationsRoom() };

export function conversationCommands(core: EngineCore): ConversationHandlers {
  const search = new EngineSearch(core);
  const room = core.room(CONVERSATIONS_ROOM);
  const titling = new Set<string>();

  async function find(slug: string): Promise<ConversationRow | undefined> {
    await core.whenStarted();
    if (!core.storageOk) return undefined;
    return core.db.conversations.where('slug').equals(slug).first();
  }

  async function record<K extends EventType>(type: K, payload: EventPayloads[K]): Promise<ActionResult> {
    const now = Date.now();
    try {
      await core.append([makeEvent(type, payload, crypto.randomUUID(), now)]);
      return { ok: true };
    } catch {
      return { ok: false, error: 'Local storage unavailable' };
    }
  }

  function schedulePurge(slug: string, deletedAt: number): void {
    room.schedulePurge(slug, deletedAt, async () => {
      const row = await find(slug);
      if (row?.deletedAt === deletedAt && !room.isDisposed) await record('conversation.purged', { slug, at: Date.now() });
    });
  }

  // Deletions left pending by an engine that went away are finished (or re-armed) when this one starts.
  void core
    .whenStarted()
    .then(async () => {
      if (!core.storageOk || room.isDisposed) return;
      const deleted = await core.db.conversations.filter((c) => c.deletedAt !== undefined).toArray();
      for (const c of deleted) schedulePurge(c.slug, c.deletedAt as number);
    })
    .catch((error: unknown) => {
      if (!room.isDisposed) console.error('Deleted conversations could not be read', error);
    });

  async function generateTitle(slug: string): Promise<ActionResult> {
    const conversation = await find(slug);
    if (!conversation || conversation.deletedAt !== undefined) return { ok: false, error: CONVERSATION_NOT_FOUND };
    if (titling.has(slug)) return { ok: true };
    titling.add(slug);
    try {
      const messages = await core.db.messages.where('conversationSlug').equals(slug).toArray();
      messages.sort(byTime);
      const content = titleContent(messages.filter((m) => m.status === 'done' && !m.hasError));
      if (content === '') return { ok: false, error: TITLE_FAILED };
      const { summary } = await gateway.conversationSummary({ conversationContent: content });
      const name = cleanName(typeof summary === 'string' ? summary : '');
      if (name === '') return { ok: false, error: TITLE_FAILED };
      // The user may have renamed it while the title was on its way: their name wins.
      const now = await find(slug);
      if (!now || now.nameSource === 'user' || now.deletedAt !== undefined) return { ok: true };
      return await record('conversation.renamed', { slug, name, source: 'generated', at: Date.now() });
    } catch (error) {
      console.warn('Title generation failed', error);
      return { ok: false, error: TITLE_FAILED };
    } finally {
      titling.delete(slug);
    }
  }

  // Spec 000 section 3: the first-words name is later replaced by a generated title, when the user turned
  // autoGenerateTitle on: after a reply completes in a conversation that has no generated or chosen name yet.
  core.events$.subscribe((events) => {
    if (!core.preferences$.value.autoGenerateTitle) return;
    for (const e of events) {
      if (e.type !== 'reply.completed') continue;
      const slug = e.payload.conversationSlug;
      void find(slug)
        .then((c) => {
          if (c && c.nameSource === undefined && c.deletedAt === undefined && !room.isDisposed) return generateTitle(slug);
        })
        .catch((error: unknown) => {
          // A database closed by the dispose is the engine ending, not a failure.
          if (!room.isDisposed) console.warn('Title generation failed', error);
        });
    }
  });

  /** Hides conversations in one append (one event each), stopping their live replies first; purged after the undo window. */
  async function hide(slugs: string[]): Promise<ActionResult> {
    const chosen = new Set(slugs);
    // A reply still streaming into one stops first (its end is recorded; the messages stay until the purge).
    for (const reply of liveReplies(core).live.values()) {
      if (!chosen.has(reply.slug)) continue;
      reply.stoppedByUser = true;
      if (reply.requestId) void gateway.cancelReply(reply.requestId).catch(() => undefined);
      reply.controller.abort();
    }
    const at = Date.now();
    try {
      await core.append(slugs.map((slug) => makeEvent('conversation.deleted', { slug, at }, crypto.randomUUID(), at)));
    } catch {
      return { ok: false, error: 'Local storage unavailable' };
    }
    for (const slug of slugs) schedulePurge(slug, at);
    return { ok: true };
  }

  /** Brings deleted conversations back in one append, and closes the notices that offered their Undo. */
  async function restore(slugs: string[]): Promise<ActionResult> {
    for (const slug of slugs) room.cancelPurge(slug);
    const at = Date.now();
    try {
      await core.append(slugs.map((slug) => makeEvent('conversation.restored', { slug, at }, crypto.randomUUID(), at)));
    } catch {
      return { ok: false, error: 'Local storage unavailable' };
    }
    const back = new Set(slugs);
    for (const n of core.notices$.value) {
      const offered = n.action?.kind === 'undo' ? [n.action.slug] : n.action?.kind === 'undoMany' ? n.action.slugs : [];
      if (offered.length > 0 && offered.every((s) => back.has(s))) void core.dismissNotice(n.id);
    }
    return { ok: true };
  }

  return {
    async renameConversation(slug: string, name: string): Promise<ActionResult> {
      const clean = cleanName(name);
      if (clean === '') return { ok: false, error: NAME_REQUIRED };
      const conversation = await find(slug);
      if (!conversation || conversation.deletedAt !== undefined) return { ok: false, error: CONVERSATION_NOT_FOUND };
      if (conversation.name === clean && conversation.nameSource === 'user') return { ok: true };
      return record('conversation.renamed', { slug, name: clean, source: 'user', at: Date.now() });
    },

    async deleteConversation(slug: string): Promise<ActionResult> {
      const conversation = await find(slug);
      if (!conversation || conversation.deletedAt !== undefined) return { ok: false, error: CONVERSATION_NOT_FOUND };
      const result = await hide([slug]);
      if (result.ok) core.notify({ title: CONVERSATION_DELETED, text: conversation.name, tone: 'blue', durationMs: UNDO_WINDOW_MS, action: { label: UNDO, kind: 'undo', slug } });
      return result;
    },

    async deleteConversations(slugs: string[]): Promise<ActionResult> {
      await core.whenStarted();
      if (!core.storageOk) return { ok: false, error: 'Local storage unavailable' };
      // Only what is there and not deleted yet; one conversation named twice is one.
      const rows = await core.db.conversations.where('slug').anyOf([...new Set(slugs)]).toArray();
      const live = rows.filter((c) => c.deletedAt === undefined).map((c) => c.slug);
      if (live.length === 0) return { ok: false, error: CONVERSATION_NOT_FOUND };
      const result = await hide(live);
      // One notice, one Undo for the whole selection (a notice per conversation would replace each other).
      if (result.ok) core.notify({ title: CONVERSATIONS_DELETED, text: deletedCountText(live.length), tone: 'blue', durationMs: UNDO_WINDOW_MS, action: { label: UNDO, kind: 'undoMany', slugs: live } });
      return result;
    },

    async restoreConversation(slug: string): Promise<ActionResult> {
      const conversation = await find(slug);
      if (!conversation || conversation.deletedAt === undefined) return { ok: false, error: CONVERSATION_NOT_FOUND };
      return restore([slug]);
    },

    async restoreConversations(slugs: string[]): Promise<ActionResult> {
      await core.whenStarted();
      if (!core.storageOk) return { ok: false, error: 'Local storage unavailable' };
      const rows = await core.db.conversations.where('slug').anyOf([...new Set(slugs)]).toArray();
      const deleted = rows.filter((c) => c.deletedAt !== undefined).map((c) => c.slug);
      if (deleted.length === 0) return { ok: false, error: CONVERSATION_NOT_FOUND };
      return restore(deleted);
    },

    async pinConversation(slug: string, pinned: boolean): Promise<ActionResult> {
      const conversation = await find(slug);
      if (!conversation || conversation.deletedAt !== undefined) return { ok: false, error: CONVERSATION_NOT_FOUND };
      if ((conversation.pinnedAt !== undefined) === pinned) return { ok: true };
      return record(pinned ? 'conversation.pinned' : 'conversation.unpinned', { slug, at: Date.now() });
    },

    async setConversationInstructions(slug: string, instructions: string): Promise<ActionResult> {
      const conversation = await find(slug);
      if (!conversation || conversation.deletedAt !== undefined) return { ok: false, error: CONVERSATION_NOT_FOUND };
      const text = firstChars(instructions, INSTRUCTIONS_MAX_CHARS);
      if ((conversation.instructions ?? '') === text) return { ok: true };
      return record('conversation.instructionsSet', { slug, instructions: text, at: Date.now() });
    },

    generateTitle,

    async searchConversations(text: string): Promise<SearchHit[]> {
      await core.whenStarted();
      if (!core.storageOk) return [];
      return search.search(text);
    },
  };
}
