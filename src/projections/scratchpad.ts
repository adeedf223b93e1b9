/**
 * Read model: the `scratchpadEntries` table (spec 000 section 3: id, content, type, timestamp, conversationSlug),
 * each conversation's scratchpad. A conversation's entries go when the conversation is purged (after its undo
 * window), not when it is deleted, so Undo brings them back with it.
 */
import type { ProjectedEvent, Projection } from './projection';
import { deleteWhere, put, remove, update, type Write } from './writes';

const NONE: Write[] = [];

export const scratchpadProjection: Projection = {
  name: 'scratchpad',
  version: 1,
  tables: ['scratchpadEntries'],
  apply(event: ProjectedEvent): Write[] {
    switch (event.type) {
      case 'scratchpad.entryAdded':
        return [put('scratchpadEntries', event.payload.entry)];
      case 'scratchpad.entryEdited':
        return [update('scratchpadEntries', event.payload.id, { content: event.payload.content })];
      case 'scratchpad.entryDeleted':
        return [remove('scratchpadEntries', event.payload.id)];
      case 'conversation.purged':
        return [deleteWhere('scratchpadEntries', 'conversationSlug', event.payload.slug)];
      default:
        return NONE;
    }
  },
};
