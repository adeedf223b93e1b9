/**
 * What the submit flow (src/worker/commands/chat.ts, step 3 of spec 000 section 4) calls for a message with
 * attachments: the user message's content (./attach-step.ts with the engine's describe and notify), and the events
 * that record which items the message carries (`library.messageLinked`) and move a new conversation's composer
 * links (conversation id 0) to the conversation just created, in the same append as the message.
 */
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { ChatPart, ModelInfo } from '../../../protocol/api';
import { IMAGE_DESCRIPTION } from '../../../protocol/attachments';
import { IMAGE_DESCRIPTION_DEFAULTS, isVisionModel } from '../../../protocol/vision';
import type { EngineCore } from '../../core';
import { buildAttachedPrompt, type AttachmentInput } from './attach-step';
import { attachmentCalls } from './gateway-calls';

/** Ours: a message cannot be sent while one of its files is still being read. */
export const FILES_NOT_READY = 'Please wait until your files are ready, or remove the ones still loading.';

export function takesImages(model: ModelInfo): boolean {
  return model.capabilities.includes('vision') || isVisionModel(model.id);
}

export type SubmitAttachments = { ok: true; prompt: string | ChatPart[]; libraryIds: number[] } | { ok: false; error: string };

export async function attachmentsForSubmit(core: EngineCore, o: { libraryIds: readonly number[]; prompt: string; model: ModelInfo; budgetChars: number; conversationUUID: string }): Promise<SubmitAttachments> {
  if (o.libraryIds.length === 0) return { ok: true, prompt: o.prompt, libraryIds: [] };
  const rows = (await core.db.library.bulkGet([...new Set(o.libraryIds)])).filter((r) => r !== undefined);
  if (rows.some((r) => r.status !== 'completed' && r.status !== 'error')) return { ok: false, error: FILES_NOT_READY };
  const items: AttachmentInput[] = [];
  for (const row of rows) {
    const file = row.type === 'image' ? await core.db.files.get(row.fileId) : undefined;
    items.push({ row, blob: file ? (file.file instanceof Blob ? file.file : new Blob([file.file], { type: row.mimeType ?? '' })) : null });
  }
  const built = await buildAttachedPrompt({
    prompt: o.prompt,
    items,
    vision: takesImages(o.model),
    budgetChars: o.budgetChars,
    describe: async (image) =>
      (
        await attachmentCalls.describeImage({
          model: IMAGE_DESCRIPTION_DEFAULTS.model,
          prompt: IMAGE_DESCRIPTION.prompt,
          image,
          detail: IMAGE_DESCRIPTION_DEFAULTS.detail,
          transactionDetails: { conversationUUID: o.conversationUUID, method: 'image-description' },
        })
      ).description,
    notify: (n) => core.notify(n),
  });
  return { ok: true, prompt: built.prompt, libraryIds: built.libraryIds };
}

/**
 * Events recording that `messageId` carries the items: messageLibrary rows, and for a conversation created by
 * this submit, its composer links moved from the new-conversation draft (0) to `conversationId`.
 */
export async function attachmentLinkEvents(core: EngineCore, o: { slug: string; conversationId: number; created: boolean; messageId: number; libraryIds: readonly number[]; now: number }): Promise<NewEvent[]> {
  if (o.libraryIds.length === 0) return [];
  const events: NewEvent[] = [];
  if (o.created) {
    const drafts = await core.db.libraryConversations.where('conversationId').equals(0).toArray();
    for (const link of drafts.filter((l) => o.libraryIds.includes(l.libraryId))) {
      events.push(makeEvent('library.itemUnlinked', { linkId: link.id, at: o.now }, crypto.randomUUID(), o.now));
      events.push(makeEvent('library.itemLinked', { link: { id: core.ids.next(o.now), libraryId: link.libraryId, conversationId: o.conversationId }, at: o.now }, crypto.randomUUID(), o.now));
    }
  }
  const links = o.libraryIds.map((libraryId) => ({ id: core.ids.next(o.now), messageId: o.messageId, libraryId }));
  events.push(makeEvent('library.messageLinked', { conversationSlug: o.slug, links, at: o.now }, crypto.randomUUID(), o.now));
  return events;
}
