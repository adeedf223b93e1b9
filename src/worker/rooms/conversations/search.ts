/**
 * Full-text search across every conversation's name and messages (issue 6 item 11), with minisearch.
 *
 * SearchIndex is the pure in-memory index (no Dexie; the benchmark drives it directly): one document per
 * conversation name and per chunk of 32 consecutive messages. It is built once, lazily, and then kept current
 * by the events appended (EngineSearch below), never rebuilt per keystroke.
 */
import MiniSearch, { type Query } from 'minisearch';
import type { ConversationRow, MessageRow } from '../../../events/model';
import type { NewEvent } from '../../../events/catalogue';
import { promptText } from '../../../projections/projection';
import type { SearchHit } from '../../../protocol/engine';
import type { EngineCore } from '../../core';
import { changeOf } from '../../changes';

/** Results shown in the sidebar. */
export const SEARCH_RESULT_LIMIT = 20;
/** Characters of context on each side of the match in a snippet. */
const SNIPPET_CONTEXT = 50;
/** Shortest query that searches (one letter matches half the vocabulary as a prefix). */
export const MIN_QUERY_CHARS = 2;

interface Doc {
  id: string;
  text: string;
}

const nameDocId = (conversationId: number): string => `c${conversationId}`;

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

/** Completions a word being typed expands to (see PrefixIndex.completions). */
export const MAX_COMPLETIONS = 8;
/** Postings (document entries) the completions of one word may bring in, at most (the shortest always counts). */
const COMPLETION_POSTINGS_BUDGET = 10_000;

/**
 * MiniSearch with a bounded prefix search. MiniSearch's own prefix search expands a prefix to every indexed word
 * that starts with it: two letters can mean thousands of words and most of the index scored per keystroke. Here
 * the word being typed expands to the few shortest completions (most frequent first among equals), within a
 * postings budget. The term dictionary (_index, a radix tree) is MiniSearch's protected member, read here only.
 */
class PrefixIndex extends MiniSearch<Doc> {
  completions(prefix: string): string[] {
    const found: { term: string; df: number }[] = [];
    for (const [term, fields] of this._index.atPrefix(prefix)) {
      let df = 0;
      for (const docs of fields.values()) df += docs.size;
      if (df > 0) found.push({ term, df });
    }
    found.sort((a, b) => a.term.length - b.term.length || b.df - a.df);
    const out: string[] = [];
    let postings = 0;
    for (const f of found) {
      if (out.length >= MAX_COMPLETIONS || (out.length > 0 && postings + f.df > COMPLETION_POSTINGS_BUDGET)) break;
      out.push(f.term);
      postings += f.df;
    }
    return out;
  }
}

/** Messages per indexed chunk of a conversation (see SearchIndex). */
export const CHUNK_MESSAGES = 32;

interface Chunk {
  docId: string;
  messages: number[];
}
interface IndexedConversation {
  id: number;
  name: string;
  chunks: Chunk[];
}

/**
 * The index. Documents are not single messages but chunks of up to CHUNK_MESSAGES (32) consecutive messages of one
 * conversation (plus one per conversation name): a hit is a conversation anyway, and 32 times fewer documents
 * make a common word cheap to score and rank. A new or changed message
 * re-indexes only its chunk. Message texts are kept (by reference) for the chunk rebuilds and the snippets.
 */
export class SearchIndex {
  private readonly mini = new PrefixIndex({
    fields: ['text'],
    idField: 'id',
    // Typos are forgiven in longer finished words only (one edit).
    searchOptions: { combineWith: 'AND', prefix: false, fuzzy: (term) => (term.length >= 5 ? 0.2 : false), maxFuzzy: 1, weights: { fuzzy: 0.3, prefix: 0.6 } },
  });
  /** Document -> its conversation (and chunk, or null for the name document). */
  private readonly docs = new Map<string, { slug: string; chunk: Chunk | null }>();
  private readonly conversations = new Map<string, IndexedConversation>();
  /** Message id -> its conversation, text and chunk. */
  private readonly messages = new Map<number, { slug: string; text: string; chunk: Chunk }>();
  /** Deleted (restorable) conversations: indexed, never shown. */
  private readonly hidden = new Set<string>();

  get documentCount(): number {
    return this.mini.documentCount;
  }

  nameOf(slug: string): string | undefined {
    return this.conversations.get(slug)?.name;
  }

  setConversation(row: Pick<ConversationRow, 'id' | 'slug' | 'name'> & { deletedAt?: number }): void {
    const c = this.conversations.get(row.slug);
    if (c === undefined) this.conversations.set(row.slug, { id: row.id, name: row.name, chunks: [] });
    if (row.deletedAt !== undefined) this.hidden.add(row.slug);
    this.rename(row.slug, row.name);
  }

  rename(slug: string, name: string): void {
    const c = this.conversations.get(slug);
    if (c === undefined) return;
    c.name = name;
    const id = nameDocId(c.id);
    this.discard(id);
    if (name !== '') this.add(id, slug, null, name);
  }

  setHidden(slug: string, hidden: boolean): void {
    if (hidden) this.hidden.add(slug);
    else this.hidden.delete(slug);
  }

  /** Index (or re-index) a message's text; an empty text removes it. */
  setMessage(id: number, slug: string, text: string): void {
    const known = this.messages.get(id);
    if (known !== undefined) {
      if (text === '') {
        this.removeMessage(id);
        return;
      }
      known.text = text;
      this.reindex(known.slug, known.chunk);
      return;
    }
    if (text === '') return;
    const c = this.conversations.get(slug);
    if (c === undefined) return;
    let chunk = c.chunks.at(-1);
    if (chunk === undefined || chunk.messages.length >= CHUNK_MESSAGES) {
      chunk = { docId: `${slug}#${c.chunks.length}`, messages: [] };
      c.chunks.push(chunk);
    }
    chunk.messages.push(id);
    this.messages.set(id, { slug, text, chunk });
    this.reindex(slug, chunk);
  }

  removeMessage(id: number): void {
    const m = this.messages.get(id);
    if (m === undefined) return;
    this.messages.delete(id);
    m.chunk.messages = m.chunk.messages.filter((x) => x !== id);
    this.reindex(m.slug, m.chunk);
  }

  /** Drop a conversation and every document of it. */
  removeConversation(slug: string): void {
    const c = this.conversations.get(slug);
    if (c === undefined) return;
    this.discard(nameDocId(c.id));
    for (const chunk of c.chunks) {
      this.discard(chunk.docId);
      for (const id of chunk.messages) this.messages.delete(id);
    }
    this.conversations.delete(slug);
    this.hidden.delete(slug);
  }

  /** Bulk load (the lazy first build): far faster than one add per document. Messages in conversation order. */
  load(conversations: readonly ConversationRow[], messages: readonly MessageRow[]): void {
    const docs: Doc[] = [];
    for (const row of conversations) {
      if (this.conversations.has(row.slug)) continue;
      this.conversations.set(row.slug, { id: row.id, name: row.name, chunks: [] });
      if (row.deletedAt !== undefined) this.hidden.add(row.slug);
      if (row.name !== '') {
        this.docs.set(nameDocId(row.id), { slug: row.slug, chunk: null });
        docs.push({ id: nameDocId(row.id), text: row.name });
      }
    }
    const touched: { slug: string; chunk: Chunk }[] = [];
    for (const m of messages) {
      const text = promptText(m.prompt);
      const c = this.conversations.get(m.conversationSlug);
      if (text === '' || c === undefined || this.messages.has(m.id)) continue;
      let chunk = c.chunks.at(-1);
      if (chunk === undefined || chunk.messages.length >= CHUNK_MESSAGES) {
        chunk = { docId: `${m.conversationSlug}#${c.chunks.length}`, messages: [] };
        c.chunks.push(chunk);
        touched.push({ slug: m.conversationSlug, chunk });
      }
      chunk.messages.push(m.id);
      this.messages.set(m.id, { slug: m.conversationSlug, text, chunk });
    }
    for (const { slug, chunk } of touched) {
      this.docs.set(chunk.docId, { slug, chunk });
      docs.push({ id: chunk.docId, text: this.chunkText(chunk) });
    }
    this.mini.addAll(docs);
  }

  /**
   * Conversations matching `text`, best first, at most `limit`, one hit each with a snippet of its best document
   * (the first of its messages there that contains a matched term). Deleted conversations are left out.
   */
  search(text: string, limit = SEARCH_RESULT_LIMIT): SearchHit[] {
    if (text.trim().length < MIN_QUERY_CHARS) return [];
    const out: SearchHit[] = [];
    const seen = new Set<string>();
    for (const r of this.mini.search(this.query(text))) {
      const doc = this.docs.get(r.id as string);
      if (doc === undefined || seen.has(doc.slug) || this.hidden.has(doc.slug)) continue;
      const c = this.conversations.get(doc.slug);
      if (c === undefined) continue;
      seen.add(doc.slug);
      out.push(this.hit(doc.slug, c.name, doc.chunk, r.terms));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** All words but the last must match (fuzzily when long); the last, being typed, matches one of its completions. */
  private query(text: string): Query {
    const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
    const typing = /[\p{L}\p{N}]$/u.test(text) ? words.pop() : undefined;
    const queries: Query[] = [...words];
    if (typing !== undefined) {
      const completions = this.mini.completions(typing);
      queries.push({ combineWith: 'OR', queries: completions.length > 0 ? completions : [typing], fuzzy: false, prefix: false });
    }
    return { combineWith: 'AND', queries };
  }

  private hit(slug: string, name: string, chunk: Chunk | null, terms: readonly string[]): SearchHit {
    if (chunk !== null) {
      for (const id of chunk.messages) {
        const text = this.messages.get(id)?.text ?? '';
        const lower = text.toLowerCase();
        if (terms.some((t) => lower.includes(t))) return { slug, name, snippet: makeSnippet(text, terms), messageId: id };
      }
    }
    return { slug, name, snippet: makeSnippet(name, terms), messageId: null };
  }

  private chunkText(chunk: Chunk): string {
    return chunk.messages.map((id) => this.messages.get(id)?.text ?? '').join('\n');
  }

  private reindex(slug: string, chunk: Chunk): void {
    this.discard(chunk.docId);
    if (chunk.messages.length > 0) this.add(chunk.docId, slug, chunk, this.chunkText(chunk));
  }

  private add(id: string, slug: string, chunk: Chunk | null, text: string): void {
    this.docs.set(id, { slug, chunk });
    this.mini.add({ id, text });
  }

  private discard(id: string): void {
    if (!this.docs.has(id)) return;
    this.docs.delete(id);
    this.mini.discard(id);
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
    return index.search(text, limit);
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
