/**
 * Live queries of the library: the library page (paged, searched by name, newest first) and a conversation's
 * composer attachments (its library links not yet sent with one of its messages). They reload on library events
 * (src/worker/changes.ts leaves library events to them) and on an imported log.
 */
import { asyncScheduler, defer, filter, from, merge, startWith, switchMap, throttleTime, type Observable } from 'rxjs';
import type { LibraryRow } from '../../../events/model';
import type { LibraryStatus } from '../../../protocol/attachments';
import type { LibraryItemView, LibraryPageView } from '../../../protocol/library';
import { STREAM_THROTTLE_MS, type EngineCore } from '../../core';
import type { QueryHandlers } from '../../query-types';
import { loadQueues } from '../replies/queue-store';
import { dedupeLibraryRows } from '../../../projections/library';

const PREVIEW_CHARS = 300;

export function toItemView(row: LibraryRow, conversations: string[], messageCount = 0): LibraryItemView {
  const text = row.content.join('\n\n');
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    fileType: row.fileType ?? '',
    mimeType: row.mimeType ?? '',
    sizeBytes: row.sizeBytes ?? 0,
    status: row.status as LibraryStatus,
    progress: row.progress ?? null,
    error: row.error ?? null,
    createdAt: row.createdAt,
    lastModified: row.lastModified,
    processingTime: row.processingTime,
    processedLocally: row.processedLocally ?? false,
    textChars: text.length,
    preview: text.slice(0, PREVIEW_CHARS),
    conversations,
    messageCount,
    // A completed image is stored compressed (at most 3.5 MB); its thumbnail was made in a file worker.
    thumbFileId: row.type === 'image' && row.status === 'completed' ? (row.thumbId ?? row.fileId) : null,
  };
}

/**
 * The links of a composer (conversation id, 0 = new) whose items were not sent with a message of that conversation
 * and are not held by one of its queued messages (a queued message keeps its attachments until it is sent).
 */
export async function draftLinks(core: EngineCore, conversationId: number, slug: string | null): Promise<{ linkId: number; item: LibraryRow }[]> {
  const all = await core.db.libraryConversations.where('conversationId').equals(conversationId).toArray();
  if (all.length === 0) return [];
  const queued = new Set((slug === null ? [] : ((await loadQueues(core)).get(slug) ?? [])).flatMap((q) => q.message.attachments.map(Number)));
  const links = all.filter((l) => !queued.has(l.libraryId));
  const items = await core.db.library.bulkGet(links.map((l) => l.libraryId));
  const out: { linkId: number; item: LibraryRow }[] = [];
  for (let i = 0; i < links.length; i++) {
    const item = items[i];
    const link = links[i];
    if (!item || !link) continue;
    if (slug !== null) {
      const sent = await core.db.messageLibrary.where('libraryId').equals(item.id).toArray();
      if (sent.length > 0) {
        const messages = await core.db.messages.bulkGet(sent.map((s) => s.messageId));
        if (messages.some((m) => m?.conversationSlug === slug)) continue;
      }
    }
    out.push({ linkId: link.id, item });
  }
  return out.sort((a, b) => a.linkId - b.linkId);
}

export function libraryQueries(core: EngineCore): Pick<QueryHandlers, 'library' | 'attachments'> {
  const changes = (): Observable<unknown> =>
    merge(
      core.changes$.pipe(filter((c) => c.all || c.slugs.size > 0)),
      core.events$.pipe(filter((events) => events.some((e) => e.type.startsWith('library.')))),
    ).pipe(startWith(null), throttleTime(STREAM_THROTTLE_MS, asyncScheduler, { leading: true, trailing: true }));

  async function slugsById(): Promise<Map<number, string>> {
    const rows = await core.db.conversations.toArray();
    return new Map(rows.filter((c) => c.deletedAt === undefined).map((c) => [c.id, c.slug]));
  }

  async function page(pageNo: number, pageSize: number, search: string): Promise<LibraryPageView> {
    await core.whenStarted();
    const size = Math.max(1, Math.min(200, Math.floor(pageSize) || 20));
    const p = Math.max(1, Math.floor(pageNo) || 1);
    if (!core.storageOk) return { items: [], total: 0, page: p, pageSize: size };
    const needle = search.trim().toLowerCase();
    const rows = (await core.db.library.toArray()).filter((r) => needle === '' || r.name.toLowerCase().includes(needle));
    rows.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
    // One row per identical file (issue 16), linked to the conversations and messages of all its rows.
    const groups = dedupeLibraryRows(rows);
    const slice = groups.slice((p - 1) * size, p * size);
    const slugs = await slugsById();
    const ids = slice.flatMap((g) => g.ids);
    const [links, sent] = await Promise.all([core.db.libraryConversations.where('libraryId').anyOf(ids).toArray(), core.db.messageLibrary.where('libraryId').anyOf(ids).toArray()]);
    const items = slice.map((g) => {
      const members = new Set(g.ids);
      const conversations = [...new Set(links.filter((l) => members.has(l.libraryId)).map((l) => slugs.get(l.conversationId)).filter((s): s is string => s !== undefined))];
      const messages = new Set(sent.filter((m) => members.has(m.libraryId)).map((m) => m.messageId));
      return toItemView(g.row, conversations, messages.size);
    });
    return { items, total: groups.length, page: p, pageSize: size };
  }

  async function attachments(slug: string | null): Promise<LibraryItemView[]> {
    await core.whenStarted();
    if (!core.storageOk) return [];
    let conversationId = 0;
    if (slug !== null) {
      const conversation = await core.db.conversations.where('slug').equals(slug).first();
      if (!conversation) return [];
      conversationId = conversation.id;
    }
    return (await draftLinks(core, conversationId, slug)).map((d) => toItemView(d.item, slug === null ? [] : [slug]));
  }

  return {
    library: (q) => changes().pipe(switchMap(() => defer(() => from(page(q.page, q.pageSize, q.search))))),
    attachments: (q) => changes().pipe(switchMap(() => defer(() => from(attachments(q.slug))))),
  };
}
