/**
 * Events of the account side's local data (issue 10): folders (spec 001 sections 3 and 4) and the updates feed's read
 * status. Each is declared once in `accountEvents` below (./define.ts); the catalogue (./catalogue.ts) joins it.
 * Pure: no DOM, no clock; ids and times travel in the payloads.
 */
import type { FolderRow } from './model';
import { int, isObj, num } from './checks';
import type { R } from './checks';
import { checked, defineEvent, LIST, NOTHING } from './define';

// ---- folders (src/worker/rooms/folders/commands.ts, src/projections/folders.ts) ----

/** A folder was made; `parentId` nests it in another folder (schema v42), null at the top. */
export interface FolderCreatedV1 {
  folder: FolderRow;
}
export interface FolderRenamedV1 {
  id: number;
  name: string;
  at: number;
}
/**
 * A folder was deleted, with the folders nested in it (`folderIds`: itself first, then its subfolders, worked out
 * by the command). Their conversation links go; the conversations stay, in no folder.
 */
export interface FolderDeletedV1 {
  id: number;
  folderIds: number[];
  at: number;
}
/**
 * Conversations were moved to a folder (one, or many at once: a bulk move), or out of any folder (`folderId`
 * null). A conversation is in at most one folder: its previous link is replaced.
 */
export interface ConversationMovedToFolderV1 {
  conversationIds: number[];
  folderId: number | null;
  at: number;
}

// ---- the updates feed (src/worker/rooms/updates/commands.ts) ----

/** Update items were read (one, or all at once), by their ids (src/updates/feed.ts). */
export interface UpdatesReadV1 {
  ids: string[];
  at: number;
}

// ---- the declarations (each check names the field it rejects: these payloads are small and rare) ----

/** Longest folder name (characters). */
export const FOLDER_NAME_MAX = 100;

function field(path: string, key: string, value: unknown, what: string): string {
  return value === undefined ? `${path}.${key} is missing` : `${path}.${key} is not ${what} (${JSON.stringify(value)?.slice(0, 60)})`;
}

function checkFields(p: unknown, path: string, fields: Record<string, [(v: unknown) => boolean, string]>): string | null {
  if (!isObj(p)) return `${path} must be an object`;
  for (const [key, [check, what]] of Object.entries(fields)) if (!check(p[key])) return field(path, key, p[key], what);
  return null;
}

const INT: [(v: unknown) => boolean, string] = [int, 'an integer'];
const NUM: [(v: unknown) => boolean, string] = [num, 'a number'];
const NAME: [(v: unknown) => boolean, string] = [(v) => typeof v === 'string' && v.trim() !== '' && v.length <= FOLDER_NAME_MAX, `a name of 1 to ${FOLDER_NAME_MAX} characters`];
const INTS: [(v: unknown) => boolean, string] = [(v) => Array.isArray(v) && v.length > 0 && v.every(int), 'a non-empty list of integers'];
const NULL_OR_INT: [(v: unknown) => boolean, string] = [(v) => v === null || int(v), 'an integer or null'];

export const accountEvents = {
  /** A folder was made, at the top or nested in `parentId`. */
  'folder.created': defineEvent({
    version: 1,
    payload: checked<FolderCreatedV1>(
      (p) =>
        checkFields(p, 'payload', { folder: [isObj, 'an object'] }) ??
        checkFields((p as R).folder, 'payload.folder', { id: INT, name: NAME, createdAt: NUM, updatedAt: NUM, parentId: NULL_OR_INT }),
    ),
    // Folders: the list shows each conversation's folder (the folders query follows these events itself).
    touches: () => NOTHING,
  }),
  'folder.renamed': defineEvent({
    version: 1,
    payload: checked<FolderRenamedV1>((p) => checkFields(p, 'payload', { id: INT, name: NAME, at: NUM })),
    touches: () => NOTHING,
  }),
  'folder.deleted': defineEvent({
    version: 1,
    payload: checked<FolderDeletedV1>((p) => checkFields(p, 'payload', { id: INT, folderIds: INTS, at: NUM })),
    touches: () => LIST,
  }),
  'conversation.movedToFolder': defineEvent({
    version: 1,
    payload: checked<ConversationMovedToFolderV1>((p) => checkFields(p, 'payload', { conversationIds: INTS, folderId: NULL_OR_INT, at: NUM })),
    touches: () => LIST,
  }),
  /** Update feed items were read (one, or all at once). */
  'updates.read': defineEvent({
    version: 1,
    payload: checked<UpdatesReadV1>((p) =>
      checkFields(p, 'payload', { ids: [(v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x !== ''), 'a non-empty list of ids'], at: NUM }),
    ),
    // The updates feed is no conversation's data: the updates query follows these events itself.
    touches: () => NOTHING,
  }),
};
