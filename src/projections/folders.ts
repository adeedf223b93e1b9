/**
 * Read model: the `folders` table (spec 001 section 3: id, name, createdAt, updatedAt, parentId) and the
 * `conversationFolders` links (conversationId, folderId). A conversation is in one folder at most, so a link's id is
 * its conversation's id; a move first deletes any link of that conversation (also one adopted from the original app
 * under another id), then adds the new one (spec 001 section 4). Deleting a folder removes it, the folders nested
 * in it and all their links; the conversations stay.
 */
import { defineProjection } from './projection';
import { deleteWhere, put, remove, update, type Write } from './writes';

export const foldersProjection = defineProjection({
  name: 'folders',
  version: 1,
  tables: ['folders', 'conversationFolders'],
  materializers: {
    'folder.created': (p) => [put('folders', p.folder)],
    'folder.renamed': (p) => [update('folders', p.id, { name: p.name, updatedAt: p.at })],
    'folder.deleted': (p) => {
      const writes: Write[] = [];
      for (const id of p.folderIds) writes.push(remove('folders', id), deleteWhere('conversationFolders', 'folderId', id));
      return writes;
    },
    'conversation.movedToFolder': (p) => {
      const { folderId } = p;
      const writes: Write[] = [];
      for (const conversationId of p.conversationIds) {
        writes.push(deleteWhere('conversationFolders', 'conversationId', conversationId));
        if (folderId !== null) writes.push(put('conversationFolders', { id: conversationId, conversationId, folderId }));
      }
      return writes;
    },
  },
});
