/**
 * The schema v41 message upgrade (spec 000 section 4, "Database"), as one pure function shared by the Dexie
 * migration (src/worker/db/schema.ts) and the message.added v1 -> v2 upcaster (./chat-events.ts), so a message
 * upgraded in the database and one upcast from an old log come out identical.
 */
import { normalizeTimestamp } from './model';
import type { MessageRow } from './model';

/** Branch fields of schema v41. */
export const BRANCH_FIELDS = ['parentMessageId', 'alternativeGroup', 'branchIndex', 'isActiveBranch', 'branchDepth', 'updatedAt'] as const;

/** A stored message row before (or while) upgrading to v41: the branch fields may be missing. */
export type LegacyMessageRow = Omit<MessageRow, (typeof BRANCH_FIELDS)[number]> & Partial<Pick<MessageRow, (typeof BRANCH_FIELDS)[number]>>;

/**
 * Upgrade one message row to the v41 shape. Returns a new object; the input is not modified.
 * - The timestamp is normalised (fewer than 13 digits = seconds, multiplied by 1000).
 * - A message lacking a parent (parentMessageId absent) gets parentMessageId null, alternativeGroup null,
 *   branchIndex 0, isActiveBranch true, branchDepth 0 and updatedAt equal to its (normalised) timestamp.
 * - A message that already has parentMessageId keeps its branch fields untouched; only ones that are missing
 *   are filled with the same defaults.
 */
export function upgradeMessageRowToV41(row: LegacyMessageRow): MessageRow {
  const timestamp = normalizeTimestamp(row.timestamp);
  if (row.parentMessageId === undefined) {
    return {
      ...row,
      timestamp,
      parentMessageId: null,
      alternativeGroup: null,
      branchIndex: 0,
      isActiveBranch: true,
      branchDepth: 0,
      updatedAt: timestamp,
    };
  }
  return {
    ...row,
    timestamp,
    parentMessageId: row.parentMessageId,
    alternativeGroup: row.alternativeGroup ?? null,
    branchIndex: row.branchIndex ?? 0,
    isActiveBranch: row.isActiveBranch ?? true,
    branchDepth: row.branchDepth ?? 0,
    updatedAt: row.updatedAt ?? timestamp,
  };
}

/** True when the row needs {@link upgradeMessageRowToV41} to change anything. */
export function messageRowNeedsV41Upgrade(row: LegacyMessageRow): boolean {
  if (normalizeTimestamp(row.timestamp) !== row.timestamp) return true;
  for (const f of BRANCH_FIELDS) if (row[f] === undefined) return true;
  return false;
}
