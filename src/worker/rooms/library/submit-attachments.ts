/**
 * The attachment step of the submit flow (step 3 of spec 000 section 4, plugged in through
 * rooms/replies/submit-plugins.ts by the library room): a message's attachments (library ids) are checked, images
 * go inline to a vision model or are described for the others, documents are cut to the model's context
 * (../../../shared/attach-step.ts), and the message gets its `files`. Once steps 4 and 5 have made the conversation and the user
 * message, the events that record which items the message carries (`library.messageLinked`) and move a new
 * conversation's composer links (conversation id 0) to the conversation are appended with them.
 */
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { LibraryRow } from '../../../events/model';
import { PLACEHOLDER_CONVERSATION_UUID, type ModelInfo } from '../../../protocol/api';
import { IMAGE_DESCRIPTION } from '../../../protocol/attachments';
import { DESCRIPTION_MAX_IMAGE_BYTES, type ImageDescriptionRequest } from '../../../protocol/attachments-api';
import { IMAGE_DESCRIPTION_DEFAULTS, takesImages } from '../../../protocol/vision';
import type { AttachmentStep } from '../replies/submit-plugins';
import type { EngineCore } from '../../core';
import { inputBudget } from '../replies/context-window';
import { MESSAGE_OVERHEAD_TOKENS, textTokens } from '../../../shared/tokens';
import { buildAttachedPrompt, type AttachedPrompt, type AttachmentInput } from '../../../shared/attach-step';
import { attachmentCalls } from './gateway-calls';

/** Ours: a message cannot be sent while one of its files is still being read. */
export const FILES_NOT_READY = 'Please wait until your files are ready, or remove the ones still loading.';
/** Ours: an attachment deleted from the library before its message was sent. */
export const FILE_GONE = 'A file of this message is no longer in the library. Remove it and send again.';
/** Ours: image, video and audio modes take their own inputs; library files go with chat messages. */
export const FILES_CHAT_ONLY = 'Files can be attached to chat messages only. Remove them or switch to Chat.';
/** How long a queued message waits for its files to be read before it is refused (it then stays queued). */
export const QUEUED_FILES_WAIT_MS = 5 * 60_000;
/** Tokens kept for the system prompt and instructions when the files' share of the context is worked out. */
export const SYSTEM_RESERVE_TOKENS = 1_000;

/** Characters of file text that fit beside the prompt in the smallest context of the models reading it. */
export function filesBudgetChars(models: readonly ModelInfo[], prompt: string, maxTokens: number): number {
  let tokens = Number.POSITIVE_INFINITY;
  for (const m of models) tokens = Math.min(tokens, inputBudget(m.contextLength, maxTokens));
  const left = tokens - textTokens(prompt) - MESSAGE_OVERHEAD_TOKENS - Math.min(SYSTEM_RESERVE_TOKENS, Math.floor(tokens / 4));
  return Math.max(0, left) * 4;
}

type Rows = { ok: true; rows: LibraryRow[] } | { ok: false; error: string };

/** The items, once none is still being read; a queued message waits for them, a message sent by hand does not. */
async function settledRows(core: EngineCore, ids: readonly number[], wait: boolean): Promise<Rows> {
  const deadline = Date.now() + QUEUED_FILES_WAIT_MS;
  for (;;) {
    const rows = await core.db.library.bulkGet([...ids]);
    if (rows.some((r) => r === undefined)) return { ok: false, error: FILE_GONE };
    const present = rows as LibraryRow[];
    if (present.every((r) => r.status === 'completed' || r.status === 'error')) return { ok: true, rows: present };
    if (!wait || Date.now() >= deadline) return { ok: false, error: FILES_NOT_READY };
    await new Promise((r) => setTimeout(r, 500));
  }
}

export type SubmitAttachments = ({ ok: true } & Omit<AttachedPrompt, 'cut'>) | { ok: false; error: string };

/** The body of POST /api/image-description for one image (spec 000 sections 7 and 9: model, prompt, detail). */
export function descriptionRequest(image: string, conversationUUID: string, session: string | undefined): ImageDescriptionRequest {
  return {
    model: IMAGE_DESCRIPTION_DEFAULTS.model,
    prompt: IMAGE_DESCRIPTION.prompt,
    image,
    detail: IMAGE_DESCRIPTION_DEFAULTS.detail,
    ...(session ? { session } : {}),
    transactionDetails: { conversationUUID, method: 'image-description' },
  };
}

export async function attachmentsForSubmit(
  core: EngineCore,
  o: { libraryIds: readonly number[]; prompt: string; models: readonly ModelInfo[]; budgetChars: number; conversationUUID: string; wait?: boolean },
): Promise<SubmitAttachments> {
  if (o.libraryIds.length === 0) return { ok: true, prompt: o.prompt, files: [], libraryIds: [] };
  const settled = await settledRows(core, [...new Set(o.libraryIds)], o.wait === true);
  if (!settled.ok) return settled;
  const items: AttachmentInput[] = [];
  for (const row of settled.rows) {
    const file = row.type === 'image' ? await core.db.files.get(row.fileId) : undefined;
    items.push({ row, blob: file ? (file.file instanceof Blob ? file.file : new Blob([file.file], { type: row.mimeType ?? '' })) : null });
  }
  const built = await buildAttachedPrompt({
    prompt: o.prompt,
    items,
    vision: o.models.every(takesImages),
    budgetChars: o.budgetChars,
    describe: async (image, row) => {
      // An image over the description's limit (a legacy inline image never compressed) is not sent to be refused.
      if ((row.sizeBytes ?? 0) > DESCRIPTION_MAX_IMAGE_BYTES) throw new Error('image too large to describe');
      return (await attachmentCalls.describeImage(descriptionRequest(image, o.conversationUUID, core.session$.value.session?.id))).description;
    },
    notify: (n) => core.notify(n),
  });
  return { ok: true, prompt: built.prompt, files: built.files, libraryIds: built.libraryIds };
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

/** Step 3 as the submit flow calls it (registered by rooms/library/commands.ts). */
export const libraryAttachmentStep: AttachmentStep = {
  async prepare(core, request) {
    if (request.mode !== 'chat') return { error: FILES_CHAT_ONLY };
    const ids = request.attachments.map(Number);
    if (ids.some((id) => !Number.isSafeInteger(id))) return { error: FILE_GONE };
    const models = [request.model, ...(request.extras ?? [])];
    const result = await attachmentsForSubmit(core, {
      libraryIds: ids,
      prompt: request.prompt,
      models,
      budgetChars: filesBudgetChars(models, request.prompt, core.preferences$.value.maxTokens),
      conversationUUID: request.conversationUUID ?? PLACEHOLDER_CONVERSATION_UUID,
      wait: request.queued === true,
    });
    if (!result.ok) return { error: result.error };
    return {
      prompt: result.prompt,
      attachments: result.libraryIds.map(String),
      events: [],
      message: result.files.length > 0 ? { files: result.files } : {},
      after: ({ conversation, created, user, now }) =>
        attachmentLinkEvents(core, { slug: conversation.slug, conversationId: conversation.id, created, messageId: user.id, libraryIds: ids, now }),
    };
  },
};
