/**
 * Events of the account side's local data (issue 10): folders (spec 001 sections 3 and 4) and the updates feed's read
 * status. Their shapes and checks live here; the shared catalogue (./catalogue.ts) and validation (./validate.ts)
 * only list them. Pure: no DOM, no clock; ids and times travel in the payloads.
 */
import type { FolderRow } from './model';

// ---- folders (src/worker/commands/folders.ts, src/projections/folders.ts) ----

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

// ---- the updates feed (src/worker/commands/updates.ts) ----

/** Update items were read (one, or all at once), by their ids (src/updates/feed.ts). */
export interface UpdatesReadV1 {
  ids: string[];
  at: number;
}

export interface AccountEventPayloads {
  'folder.created': FolderCreatedV1;
  'folder.renamed': FolderRenamedV1;
  'folder.deleted': FolderDeletedV1;
  'conversation.movedToFolder': ConversationMovedToFolderV1;
  'updates.read': UpdatesReadV1;
}

// ---- checks (the fast path and the named error in one: these payloads are small and rare) ----

type R = Record<string, unknown>;
const isObj = (v: unknown): v is R => typeof v === 'object' && v !== null && !Array.isArray(v);
const int = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const str = (v: unknown): v is string => typeof v === 'string';

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
const NAME: [(v: unknown) => boolean, string] = [(v) => str(v) && v.trim() !== '' && v.length <= FOLDER_NAME_MAX, `a name of 1 to ${FOLDER_NAME_MAX} characters`];
const INTS: [(v: unknown) => boolean, string] = [(v) => Array.isArray(v) && v.length > 0 && v.every(int), 'a non-empty list of integers'];

export const accountPayloadChecks: { [K in keyof AccountEventPayloads]: (p: unknown) => string | null } = {
  'folder.created': (p) =>
    checkFields(p, 'payload', { folder: [isObj, 'an object'] }) ??
    checkFields((p as R).folder, 'payload.folder', {
      id: INT,
      name: NAME,
      createdAt: NUM,
      updatedAt: NUM,
      parentId: [(v) => v === null || int(v), 'an integer or null'],
    }),
  'folder.renamed': (p) => checkFields(p, 'payload', { id: INT, name: NAME, at: NUM }),
  'folder.deleted': (p) => checkFields(p, 'payload', { id: INT, folderIds: INTS, at: NUM }),
  'conversation.movedToFolder': (p) =>
    checkFields(p, 'payload', { conversationIds: INTS, folderId: [(v) => v === null || int(v), 'an integer or null'], at: NUM }),
  'updates.read': (p) => checkFields(p, 'payload', { ids: [(v) => Array.isArray(v) && v.length > 0 && v.every((x) => str(x) && x !== ''), 'a non-empty list of ids'], at: NUM }),
};
