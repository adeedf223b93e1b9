/**
 * The scratchpad (spec 000 sections 2 and 3; issue 8 item 6): a panel of entries per conversation, each a note
 * typed in the panel, a message's text, code, or a code run's output. Entries are engine data kept in the log
 * (`scratchpad.entryAdded`, `entryEdited`, `entryDeleted`, folded into the scratchpadEntries table by
 * src/projections/scratchpad.ts), so they survive a reload and reach every tab.
 */
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import { SCRATCHPAD_TYPES } from '../../../events/validate';
import type { ActionResult, ScratchpadEntryType, ScratchpadHandlers } from '../../../protocol/engine';
import type { EngineCore } from '../../core';

/** Longest entry kept (characters): a long reply or a run's output fits; a pasted book does not. */
export const SCRATCHPAD_MAX_CHARS = 200_000;
// Our own wording (the spec shows none for the scratchpad).
export const SCRATCHPAD_ERROR = {
  empty: 'A scratchpad entry needs some text',
  tooLong: `A scratchpad entry can hold at most ${SCRATCHPAD_MAX_CHARS.toLocaleString('en-US')} characters`,
  noConversation: 'The scratchpad belongs to a conversation: send a message first',
  notFound: 'Scratchpad entry not found',
  badType: 'Unknown scratchpad entry type',
  storage: 'Local storage unavailable',
} as const;

function checkContent(content: string): string | null {
  if (content.trim() === '') return SCRATCHPAD_ERROR.empty;
  if (content.length > SCRATCHPAD_MAX_CHARS) return SCRATCHPAD_ERROR.tooLong;
  return null;
}

export function scratchpadCommands(core: EngineCore): ScratchpadHandlers {
  async function append(event: NewEvent): Promise<ActionResult> {
    try {
      await core.append([event]);
      return { ok: true };
    } catch {
      return { ok: false, error: SCRATCHPAD_ERROR.storage };
    }
  }

  return {
    async addScratchpadEntry(slug: string, content: string, type: ScratchpadEntryType) {
      const bad = checkContent(content);
      if (bad !== null) return { ok: false, error: bad };
      if (!(SCRATCHPAD_TYPES as readonly string[]).includes(type)) return { ok: false, error: SCRATCHPAD_ERROR.badType };
      await core.whenStarted();
      const conversation = slug === '' ? undefined : await core.db.conversations.where('slug').equals(slug).first();
      if (!conversation || conversation.deletedAt !== undefined) return { ok: false, error: SCRATCHPAD_ERROR.noConversation };
      const now = Date.now();
      const entry = { id: core.ids.next(now), content, type, timestamp: now, conversationSlug: slug };
      const result = await append(makeEvent('scratchpad.entryAdded', { entry }, crypto.randomUUID(), now));
      return result.ok ? { ok: true, id: entry.id } : result;
    },

    async editScratchpadEntry(id: number, content: string): Promise<ActionResult> {
      const bad = checkContent(content);
      if (bad !== null) return { ok: false, error: bad };
      await core.whenStarted();
      const row = await core.db.scratchpadEntries.get(id);
      if (!row) return { ok: false, error: SCRATCHPAD_ERROR.notFound };
      if (row.content === content) return { ok: true };
      const now = Date.now();
      return append(makeEvent('scratchpad.entryEdited', { id, conversationSlug: row.conversationSlug, content, at: now }, crypto.randomUUID(), now));
    },

    async deleteScratchpadEntry(id: number): Promise<ActionResult> {
      await core.whenStarted();
      const row = await core.db.scratchpadEntries.get(id);
      if (!row) return { ok: false, error: SCRATCHPAD_ERROR.notFound };
      const now = Date.now();
      return append(makeEvent('scratchpad.entryDeleted', { id, conversationSlug: row.conversationSlug, at: now }, crypto.randomUUID(), now));
    },
  };
}
