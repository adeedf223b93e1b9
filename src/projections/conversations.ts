/**
 * Read model: the `conversations` table. Owns conversation rows and their derived preview fields
 * (updatedAt, latestMessage), which follow the messages added and the replies completed.
 */
import { normalizeTimestamp } from '../events/model';
import type { ConversationRow } from '../events/model';
import { defineProjection, firstChars, LATEST_MESSAGE_CHARS, promptText } from './projection';
import { deleteWhere, put, updateWhere } from './writes';
import type { Write } from './writes';

/** Preview changes for a conversation: updatedAt always, latestMessage only when there is text to show. */
function touch(updatedAt: number, text: string): Partial<ConversationRow> {
  return text === '' ? { updatedAt } : { updatedAt, latestMessage: firstChars(text, LATEST_MESSAGE_CHARS) };
}

/** The conversation `slug`'s preview moves to `at`, showing `text`. */
const preview = (slug: string, at: number, text: string): Write[] => [updateWhere('conversations', 'slug', slug, touch(at, text))];

export const conversationsProjection = defineProjection({
  name: 'conversations',
  version: 1,
  tables: ['conversations'],
  // The events of every chat turn, as writers (a fold writes them straight into its store).
  writers: {
    'conversation.created': (p, _, out) => out.put('conversations', p.conversation),
    'message.added': ({ message: m }, _, out) =>
      out.updateWhere('conversations', 'slug', m.conversationSlug, touch(normalizeTimestamp(m.timestamp), promptText(m.prompt))),
    'reply.completed': (p, event, out) => out.updateWhere('conversations', 'slug', p.conversationSlug, touch(event.at, p.text)),
  },
  materializers: {
    'conversation.duplicated': (p) => [put('conversations', p.conversation)],
    'conversation.renamed': (p) => [updateWhere('conversations', 'slug', p.slug, { name: p.name, nameSource: p.source })],
    'conversation.deleted': (p) => [updateWhere('conversations', 'slug', p.slug, { deletedAt: p.at })],
    'conversation.restored': (p) => [updateWhere('conversations', 'slug', p.slug, { deletedAt: undefined })],
    'conversation.purged': (p) => [deleteWhere('conversations', 'slug', p.slug)],
    'conversation.pinned': (p) => [updateWhere('conversations', 'slug', p.slug, { pinnedAt: p.at })],
    'conversation.unpinned': (p) => [updateWhere('conversations', 'slug', p.slug, { pinnedAt: undefined })],
    'conversation.instructionsSet': (p) => [updateWhere('conversations', 'slug', p.slug, { instructions: p.instructions })],
    'image.generated': (p, event) => preview(p.conversationSlug, event.at, `[${p.images.length} image${p.images.length === 1 ? '' : 's'}]`),
    'image.answered': (p, event) => preview(p.conversationSlug, event.at, p.text),
    'video.statusChanged': (p, event) => (p.status === 'completed' ? preview(p.conversationSlug, event.at, '[video]') : []),
  },
});
