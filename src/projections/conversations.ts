/**
 * Read model: the `conversations` table. Owns conversation rows and their derived preview fields
 * (updatedAt, latestMessage), which follow the messages added and the replies completed.
 */
import { normalizeTimestamp } from '../events/model';
import type { ConversationRow } from '../events/model';
import { firstChars, LATEST_MESSAGE_CHARS, promptText } from './projection';
import type { ProjectedEvent, Projection } from './projection';
import { deleteWhere, put, updateWhere } from './writes';
import type { Write } from './writes';

const NONE: Write[] = [];

/** Preview changes for a conversation: updatedAt always, latestMessage only when there is text to show. */
function touch(updatedAt: number, text: string): Partial<ConversationRow> {
  return text === '' ? { updatedAt } : { updatedAt, latestMessage: firstChars(text, LATEST_MESSAGE_CHARS) };
}

export const conversationsProjection: Projection = {
  name: 'conversations',
  version: 1,
  tables: ['conversations'],
  apply(event: ProjectedEvent): Write[] {
    switch (event.type) {
      case 'conversation.created':
        return [put('conversations', event.payload.conversation)];
      case 'message.added': {
        const m = event.payload.message;
        return [updateWhere('conversations', 'slug', m.conversationSlug, touch(normalizeTimestamp(m.timestamp), promptText(m.prompt)))];
      }
      case 'reply.completed': {
        const p = event.payload;
        return [updateWhere('conversations', 'slug', p.conversationSlug, touch(event.at, p.text))];
      }
      case 'conversation.duplicated':
        return [put('conversations', event.payload.conversation)];
      case 'conversation.renamed': {
        const p = event.payload;
        return [updateWhere('conversations', 'slug', p.slug, { name: p.name, nameSource: p.source })];
      }
      case 'conversation.deleted':
        return [updateWhere('conversations', 'slug', event.payload.slug, { deletedAt: event.payload.at })];
      case 'conversation.restored':
        return [updateWhere('conversations', 'slug', event.payload.slug, { deletedAt: undefined })];
      case 'conversation.purged':
        return [deleteWhere('conversations', 'slug', event.payload.slug)];
      case 'conversation.pinned':
        return [updateWhere('conversations', 'slug', event.payload.slug, { pinnedAt: event.payload.at })];
      case 'conversation.unpinned':
        return [updateWhere('conversations', 'slug', event.payload.slug, { pinnedAt: undefined })];
      case 'conversation.instructionsSet':
        return [updateWhere('conversations', 'slug', event.payload.slug, { instructions: event.payload.instructions })];
      case 'reply.started':
      case 'reply.checkpointed':
      case 'reply.failed':
      case 'reply.interrupted':
      case 'preferences.changed':
      case 'payment.started':
      case 'payment.settled':
      case 'message.webSearched':
      case 'scratchpad.entryAdded':
      case 'scratchpad.entryEdited':
      case 'scratchpad.entryDeleted':
      case 'speech.generated':
      case 'folder.created':
      case 'folder.renamed':
      case 'folder.deleted':
      case 'conversation.movedToFolder':
      case 'updates.read':
      case 'instruction.created':
      case 'instruction.updated':
      case 'instruction.deleted':
      case 'queue.messageAdded':
      case 'queue.messageRemoved':
      case 'message.branched':
      case 'branch.activated':
      case 'message.deleted':
      case 'message.retried':
      case 'reply.continued':
      case 'library.itemAdded':
      case 'library.itemProgressed':
      case 'library.itemCompleted':
      case 'library.itemFailed':
      case 'library.itemDeleted':
      case 'library.itemLinked':
      case 'library.messageLinked':
      case 'library.itemUnlinked':
      case 'message.imagesExtracted':
        return NONE;
      case 'image.generated':
        return [updateWhere('conversations', 'slug', event.payload.conversationSlug, touch(event.at, `[${event.payload.images.length} image${event.payload.images.length === 1 ? '' : 's'}]`))];
      case 'image.answered':
        return [updateWhere('conversations', 'slug', event.payload.conversationSlug, touch(event.at, event.payload.text))];
      case 'video.statusChanged':
        return event.payload.status === 'completed' ? [updateWhere('conversations', 'slug', event.payload.conversationSlug, touch(event.at, '[video]'))] : NONE;
      case 'image.favourited':
      case 'video.requested':
      case 'modelSettings.changed':
        return NONE;
    }
  },
};
