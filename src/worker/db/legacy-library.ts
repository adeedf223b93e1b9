/**
 * Library rows that predate the library's events (a database of the original app, schema v42) are adopted once
 * into the log before the library projection first rebuilds its tables, so none is lost: each row becomes a
 * `library.itemAdded` (ids `legacy:library:<id>`), each link a `library.itemLinked` or `library.messageLinked`.
 * Called from ensureProjectionsCurrent (src/worker/log.ts) inside its transaction.
 */
import { makeEvent, type NewEvent } from '../../events/catalogue';
import type { LibraryConversationRow, LibraryRow, MessageLibraryRow } from '../../events/model';
import { LIBRARY_STATUSES, type LibraryStatus } from '../../protocol/attachments';
import type { ParleyDB } from './schema';

export const LEGACY_LIBRARY_KEY = 'log:legacy-library-adopted';

function legacyStatus(status: unknown): LibraryStatus {
  const s = typeof status === 'string' ? status.toLowerCase().replace(/_/g, ' ') : '';
  return (LIBRARY_STATUSES as readonly string[]).includes(s) ? (s as LibraryStatus) : 'completed';
}

export function legacyLibraryEvents(items: readonly LibraryRow[], conversations: readonly LibraryConversationRow[], messages: readonly MessageLibraryRow[]): NewEvent[] {
  const events: NewEvent[] = [];
  for (const row of items) {
    const item: LibraryRow = { ...row, content: Array.isArray(row.content) ? row.content.map(String) : [], status: legacyStatus(row.status), processingTime: Number(row.processingTime) || 0, order: Number(row.order) || 0 };
    events.push(makeEvent('library.itemAdded', { item }, `legacy:library:${row.id}`, row.createdAt || 0));
  }
  for (const link of conversations) events.push(makeEvent('library.itemLinked', { link, at: 0 }, `legacy:library-conversation:${link.id}`, 0));
  if (messages.length > 0) events.push(makeEvent('library.messageLinked', { conversationSlug: '', links: [...messages], at: 0 }, 'legacy:message-library', 0));
  return events;
}

/** Adopts the rows once (meta key LEGACY_LIBRARY_KEY). Returns the number of events added. */
export async function adoptLegacyLibrary(db: ParleyDB): Promise<number> {
  if ((await db.meta.get(LEGACY_LIBRARY_KEY)) !== undefined) return 0;
  const [items, conversations, messages] = await Promise.all([db.library.toArray(), db.libraryConversations.toArray(), db.messageLibrary.toArray()]);
  const events = legacyLibraryEvents(items, conversations, messages);
  if (events.length > 0) await db.events.bulkAdd(events);
  await db.meta.put({ key: LEGACY_LIBRARY_KEY, value: { events: events.length } });
  return events.length;
}
