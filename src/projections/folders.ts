/**
 * Read model: the `folders` table (spec 001 section 3: id, name, createdAt, updatedAt, parentId) and the
 * `conversationFolders` links (conversationId, folderId). A conversation is in one folder at most, so a link's id is
 * its conversation's id; a move first deletes any link of that conversation (also one adopted from the original app
 * under another id), then adds the new one (spec 001 section 4). Deleting a folder removes it, the folders nested
 * in it and all their links; the conversations stay.
 */
import type { ProjectedEvent, Projection } from './projection';
import { deleteWhere, put, remove, update, type Write } from './writes';

const NONE: Write[] = [];

export const foldersProjection: Projection = {
  name: 'folders',
  version: 1,
  tables: ['folders', 'conversationFolders'],
  apply(event: ProjectedEvent): Write[] {
    switch (event.type) {
      case 'folder.created':
        return [put('folders', event.payload.folder)];
      case 'folder.renamed':
        return [update('folders', event.payload.id, { name: event.payload.name, updatedAt: event.payload.at })];
      case 'folder.deleted': {
        const writes: Write[] = [];
        for (const id of event.payload.folderIds) writes.push(remove('folders', id), deleteWhere('conversationFolders', 'folderId', id));
        return writes;
      }
      case 'conversation.movedToFolder': {
        const { folderId } = event.payload;
        const writes: Write[] = [];
        for (const conversationId of event.payload.conversationIds) {
          writes.push(deleteWhere('conversationFolders', 'conversationId', conversationId));
          if (folderId !== null) writes.push(put('conversationFolders', { id: conversationId, conversationId, folderId }));
        }
        return writes;
      }
      default:
        return NONE;
    }
  },
};
