/**
 * Full-text search across every conversation's name and messages (issue 6 item 11), with minisearch.
 *
 * SearchIndex is the pure in-memory index (no Dexie; the benchmark drives it directly): one document per
 * conversation name and one per message with text. It is built once, lazily, and then kept current by the
 * events appended (EngineSearch below), never rebuilt per keystroke. Message text is not stored in the index:
 * the few hits shown get their snippet from text looked up afterwards.
 */
import MiniSearch from 'minisearch';
import type { ConversationRow, MessageRow } from '../../events/model';
import type { NewEvent } from '../../events/catalogue';
import { promptText } from '../../projections/projection';
import type { SearchHit } from '../../protocol/engine';
import type { EngineCore } from '../core';
import { changeOf } from '../changes';

/** Results shown in the sidebar. */
export const SEARCH_RESULT_LIMIT = 20;
/** Characters of context on each side of the match in a snippet. */
const SNIPPET_CONTEXT = 50;
/** Shortest query that searches (one letter matches half the vocabulary as a prefix). */
export const MIN_QUERY_CHARS = 2;

type DocId = number | string;
interface Doc {
  id: DocId;
  text: string;
}

const nameDocId = (conversationId: number): string => `c${conversationId}`;

/** Terms of a query as the index sees them (lower case, split on anything but letters and digits). */
export function queryTerms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0);
}

/** A line of `text` around the first place one of `terms` starts a word, with ellipses where it was cut. */
export function makeSnippet(text: string, terms: readonly string[], context = SNIPPET_CONTEXT): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  let at = -1;
  let len = 0;
  for (const term of terms) {
    const re = new RegExp(`(^|[^\\p{L}\\p{N}])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u');
    const m = re.exec(lower);
    if (m !== null) {
      const pos = m.index + (m[1]?.length ?? 0);
      if (at === -1 || pos < at) {
        at = pos;
        len = term.length;
      }
    }
  }
  if (at === -1) return flat.length <= context * 2 ? flat : `${flat.slice(0, context * 2)}…`;
  const start = Math.max(0, at - context);
  const end = Math.min(flat.length, at + len + context);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

/** A hit before its snippet: the conversation and the best-scoring document of it. */
export interface RawHit {
  slug: string;
  /** The matching message, or null when the conversation's name matched best. */
  messageId: number | null;
}

export class SearchIndex {
  private readonly mini = new MiniSearch<Doc>({
    fields: ['text'],
    idField: 'id',
    searchOptions: {
      combineWith: 'AND',
      // The last word is being typed: match it as a prefix. Typos are forgiven in longer words only.
      prefix: (_term, i, terms) => i === terms.length - 1,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      maxFuzzy: 2,
      weights: { fuzzy: 0.3, prefix: 0.6 },
    },
  });
  /** Document -> its conversation's slug. */
  private readonly slugOf = new Map<DocId, string>();
  /** Conversation slug -> its documents (to drop them all when it is purged or reindexed). */
  private readonly docsOf = new Map<string, Set<DocId>>();
  /** Conversation slug -> name and row id. */
  private readonly conversations = new Map<string, { id: number; name: string }>();
  /** Deleted (restorable) conversations: indexed, never shown. */
  private readonly hidden = new Set<string>();

  get documentCount(): number {
    return this.mini.documentCount;
  }

  nameOf(slug: string): string | undefined {
    return this.conversations.get(slug)?.name;
  }

  setConversation(row: Pick<ConversationRow, 'id' | 'slug' | 'name'> & { deletedAt?: number }): void {
    this.conversations.set(row.slug, { id: row.id, name: row.name });
    this.put(nameDocId(row.id), row.slug, row.name);
    if (row.deletedAt !== undefined) this.hidden.add(row.slug);
  }

  rename(slug: string, name: string): void {
    const c = this.conversations.get(slug);
    if (c === undefined) return;
    c.name = name;
    this.put(nameDocId(c.id), slug, name);
  }

  setHidden(slug: string, hidden: boolean): void {
    if (hidden) this.hidden.add(slug);
    else this.hidden.delete(slug);
  }

  /** Index (or re-index) a message's text; an empty text removes it. */
  setMessage(id: number, slug: string, text: string): void {
    this.put(id, slug, text);
  }

  removeMessage(id: number): void {
    const slug = this.slugOf.get(id);
    if (slug === undefined) return;
    this.mini.discard(id);
    this.slugOf.delete(id);
    this.docsOf.get(slug)?.delete(id);
  }

  /** Drop a conversation and every document of it. */
  removeConversation(slug: string): void {
    for (const id of this.docsOf.get(slug) ?? []) {
      this.mini.discard(id);
      this.slugOf.delete(id);
    }
    this.docsOf.delete(slug);
    this.conversations.delete(slug);
    this.hidden.delete(slug);
  }

  /** Bulk load (the lazy first build): far faster than one add per document. */
  load(conversations: readonly ConversationRow[], messages: readonly MessageRow[]): void {
    const docs: Doc[] = [];
    for (const c of conversations) {
      this.conversations.set(c.slug, { id: c.id, name: c.name });
      if (c.deletedAt !== undefined) this.hidden.add(c.slug);
      this.track(nameDocId(c.id), c.slug);
      docs.push({ id: nameDocId(c.id), text: c.name });
    }
    for (const m of messages) {
      const text = promptText(m.prompt);
      if (text === '') continue;
      this.track(m.id, m.conversationSlug);
      docs.push({ id: m.id, text });
    }
    this.mini.addAll(docs);
  }

  /**
   * Conversations matching `text`, best first, at most `limit`, one hit each (its best document). Deleted
   * conversations are left out.
   */
  search(text: string, limit = SEARCH_RESULT_LIMIT): RawHit[] {
    if (text.trim().length < MIN_QUERY_CHARS) return [];
    const out: RawHit[] = [];
    const seen = new Set<string>();
    for (const r of this.mini.search(text)) {
      const slug = this.slugOf.get(r.id as DocId);
      if (slug === undefined || seen.has(slug) || this.hidden.has(slug) || !this.conversations.has(slug)) continue;
      seen.add(slug);
      out.push({ slug, messageId: typeof r.id === 'number' ? r.id : null });
      if (out.length >= limit) break;
    }
    return out;
  }

  private track(id: DocId, slug: string): void {
    this.slugOf.set(id, slug);
    let set = this.docsOf.get(slug);
    if (set === undefined) this.docsOf.set(slug, (set = new Set()));
    set.add(id);
  }

  private put(id: DocId, slug: string, text: string): void {
    if (this.slugOf.has(id)) {
      this.mini.discard(id);
      this.slugOf.delete(id);
      this.docsOf.get(slug)?.delete(id);
    }
    if (text === '') return;
    this.track(id, slug);
    this.mini.add({ id, text });
  }
}

/**
 * The engine's search: builds the index from the read models on the first search, then follows the log
 * (core.events$). Events it does not know (other domains') re-index the conversations they touch, read from the
 * database at the next search, so the index never drifts from what the pages show.
 */
export class EngineSearch {
  private index: SearchIndex | null = null;
  private building: Promise<SearchIndex> | null = null;
  /** Events appended while the first build was reading the database; applied once it is done. */
  private queued: NewEvent[] = [];
  private readonly dirty = new Set<string>();

  constructor(private readonly core: EngineCore) {
    core.events$.subscribe((events) => {
      if (this.building !== null && this.index === null) this.queued.push(...events);
      else if (this.index !== null) for (const e of events) this.apply(this.index, e);
    });
    // An imported log changes everything: build again on the next search.
    core.changes$.subscribe((c) => {
      if (c.all) {
        this.index = null;
        this.building = null;
        this.queued = [];
        this.dirty.clear();
      }
    });
  }

  async search(text: string, limit = SEARCH_RESULT_LIMIT): Promise<SearchHit[]> {
    if (text.trim().length < MIN_QUERY_CHARS) return [];
    const index = await this.ready();
    await this.reindexDirty(index);
    const raw = index.search(text, limit);
    const ids = raw.flatMap((h) => (h.messageId === null ? [] : [h.messageId]));
    const rows = ids.length > 0 ? await this.core.db.messages.bulkGet(ids) : [];
    const textById = new Map<number, string>();
    for (const m of rows) if (m !== undefined) textById.set(m.id, promptText(m.prompt));
    const terms = queryTerms(text);
    return raw.map((h) => {
      const name = index.nameOf(h.slug) ?? '';
      const source = h.messageId === null ? name : (textById.get(h.messageId) ?? '');
      return { slug: h.slug, name, snippet: makeSnippet(source, terms), messageId: h.messageId };
    });
  }

  private ready(): Promise<SearchIndex> {
    if (this.index !== null) return Promise.resolve(this.index);
    this.building ??= (async () => {
      await this.core.whenStarted();
      const index = new SearchIndex();
      const [conversations, messages] = await this.core.db.transaction('r', this.core.db.conversations, this.core.db.messages, () =>
        Promise.all([this.core.db.conversations.toArray(), this.core.db.messages.toArray()]),
      );
      index.load(conversations, messages);
      for (const e of this.queued) this.apply(index, e);
      this.queued = [];
      this.index = index;
      return index;
    })();
    return this.building;
  }

  private apply(index: SearchIndex, e: NewEvent): void {
    switch (e.type) {
      case 'conversation.created':
        index.setConversation(e.payload.conversation);
        return;
      case 'message.added': {
        const m = e.payload.message;
        index.setMessage(m.id, m.conversationSlug, promptText(m.prompt));
        return;
      }
      case 'reply.completed':
        index.setMessage(e.payload.messageId, e.payload.conversationSlug, e.payload.text);
        return;
      case 'reply.failed':
        if (e.payload.keepPartial) index.setMessage(e.payload.messageId, e.payload.conversationSlug, e.payload.text);
        else index.removeMessage(e.payload.messageId);
        return;
      case 'conversation.renamed':
        index.rename(e.payload.slug, e.payload.name);
        return;
      case 'conversation.deleted':
        index.setHidden(e.payload.slug, true);
        return;
      case 'conversation.restored':
        index.setHidden(e.payload.slug, false);
        return;
      case 'conversation.purged':
        index.removeConversation(e.payload.slug);
        return;
      case 'reply.started':
      case 'reply.checkpointed':
      case 'reply.interrupted':
      case 'conversation.pinned':
      case 'conversation.unpinned':
      case 'conversation.instructionsSet':
      case 'instruction.created':
      case 'instruction.updated':
      case 'instruction.deleted':
        return;
      default:
        // Another domain's event: re-read the conversations it touched before the next search.
        for (const slug of changeOf([e]).slugs) this.dirty.add(slug);
    }
  }

  private async reindexDirty(index: SearchIndex): Promise<void> {
    if (this.dirty.size === 0) return;
    const slugs = [...this.dirty];
    this.dirty.clear();
    for (const slug of slugs) {
      const [conversation, messages] = await Promise.all([
        this.core.db.conversations.where('slug').equals(slug).first(),
        this.core.db.messages.where('conversationSlug').equals(slug).toArray(),
      ]);
      index.removeConversation(slug);
      if (conversation === undefined) continue;
      index.load([conversation], messages);
    }
  }
}
