/**
 * Read model: the `scratchpadEntries` table (spec 000 section 3: id, content, type, timestamp, conversationSlug),
 * each conversation's scratchpad. A conversation's entries go when the conversation is purged (after its undo
 * window), not when it is deleted, so Undo brings them back with it.
 */
import { defineProjection } from './projection';
import { deleteWhere, put, remove, update } from './writes';

export const scratchpadProjection = defineProjection({
  name: 'scratchpad',
  version: 1,
  tables: ['scratchpadEntries'],
  materializers: {
    'scratchpad.entryAdded': (p) => [put('scratchpadEntries', p.entry)],
    'scratchpad.entryEdited': (p) => [update('scratchpadEntries', p.id, { content: p.content })],
    'scratchpad.entryDeleted': (p) => [remove('scratchpadEntries', p.id)],
    'conversation.purged': (p) => [deleteWhere('scratchpadEntries', 'conversationSlug', p.slug)],
  },
});
