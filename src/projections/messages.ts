/**
 * Read model: the `messages` table. A message is put when added; a reply's lifecycle (started, checkpointed,
 * completed, failed, interrupted) updates the assistant message in place (spec 000 section 4, submit flow).
 */
import { normalizeTimestamp } from '../events/model';
import type { MessageRow } from '../events/model';
import type { ProjectedEvent, Projection } from './projection';
import { deleteWhere, put, remove, update, updateWhere } from './writes';
import type { Write } from './writes';
import { mediaWrites } from './media';

export const messagesProjection: Projection = {
  name: 'messages',
  // v2: reply.started records the reply's requestId on the message (an engine that takes over resumes by it).
  // v3: image and video events (./media.ts).
  // v4: speech.generated keeps a message's audio.
  version: 4,
  tables: ['messages'],
  apply(event: ProjectedEvent): Write[] {
    switch (event.type) {
      case 'conversation.created':
      case 'conversation.renamed':
      case 'conversation.deleted':
      case 'conversation.restored':
      case 'conversation.pinned':
      case 'conversation.unpinned':
      case 'conversation.instructionsSet':
      case 'preferences.changed':
      case 'payment.started':
      case 'payment.settled':
      case 'scratchpad.entryAdded':
      case 'scratchpad.entryEdited':
      case 'scratchpad.entryDeleted':
      case 'folder.created':
      case 'folder.renamed':
      case 'folder.deleted':
      case 'conversation.movedToFolder':
      case 'updates.read':
      case 'instruction.created':
      case 'instruction.updated':
      case 'instruction.deleted':
      case 'queue.messageAdded':
      case 'queue.messageRemoved':
      case 'library.itemAdded':
      case 'library.itemProgressed':
      case 'library.itemCompleted':
      case 'library.itemFailed':
      case 'library.itemDeleted':
      case 'library.itemLinked':
      case 'library.messageLinked':
      case 'library.itemUnlinked':
        return [];
      // The background migration moved a message's inline images into its images field (src/worker/services/library/migration.ts).
      case 'message.imagesExtracted':
        return [update('messages', event.payload.messageId, { prompt: event.payload.prompt, images: event.payload.images })];
      case 'image.favourited':
      case 'modelSettings.changed':
        return [];
      case 'image.generated':
      case 'image.answered':
      case 'video.requested':
      case 'video.statusChanged':
        return mediaWrites(event);
      // A deleted conversation keeps its messages through the undo window; they go when it is purged.
      case 'conversation.purged':
        return [deleteWhere('messages', 'conversationSlug', event.payload.slug)];
      case 'message.branched': {
        const p = event.payload;
        return [update('messages', p.messageId, { alternativeGroup: p.alternativeGroup, branchIndex: 0, isActiveBranch: false, updatedAt: p.at })];
      }
      case 'branch.activated': {
        const p = event.payload;
        return [
          updateWhere('messages', 'alternativeGroup', p.alternativeGroup, { isActiveBranch: false }),
          update('messages', p.messageId, { isActiveBranch: true, updatedAt: p.at }),
        ];
      }
      case 'message.deleted': {
        const p = event.payload;
        const writes: Write[] = p.messageIds.map((id) => remove('messages', id));
        for (const r of p.reparented) writes.push(update('messages', r.messageId, { parentMessageId: r.parentMessageId, updatedAt: p.at }));
        if (p.activated !== null) writes.push(update('messages', p.activated, { isActiveBranch: true, updatedAt: p.at }));
        for (const id of p.ungrouped) writes.push(update('messages', id, { alternativeGroup: null, branchIndex: 0, isActiveBranch: true, updatedAt: p.at }));
        return writes;
      }
      case 'message.retried':
        return [update('messages', event.payload.messageId, { hasError: undefined, error: undefined, status: 'done', updatedAt: event.payload.at })];
      case 'reply.continued': {
        const p = event.payload;
        return [update('messages', p.messageId, { status: 'streaming', requestId: p.requestId, continuedFrom: { text: p.text, thinking: p.thinking }, isPartial: undefined, updatedAt: p.at })];
      }
      case 'conversation.duplicated':
        return event.payload.messages.map((m) => put('messages', m));
      case 'message.added': {
        const m = event.payload.message;
        const ts = normalizeTimestamp(m.timestamp);
        return [put('messages', ts === m.timestamp ? m : { ...m, timestamp: ts })];
      }
      case 'reply.started':
        return [update('messages', event.payload.messageId, { status: 'streaming', requestId: event.payload.requestId, updatedAt: event.at })];
      case 'reply.checkpointed': {
        const p = event.payload;
        return [update('messages', p.messageId, { prompt: p.text, thinking: p.thinking, updatedAt: event.at })];
      }
      case 'reply.completed': {
        const p = event.payload;
        const changes: Partial<MessageRow> = {
          prompt: p.text,
          thinking: p.thinking,
          status: 'done',
          cost: p.cost,
          updatedAt: event.at,
        };
        if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
        if (p.outputTokens !== null) changes.outputTokens = p.outputTokens;
        if (p.inputTokens != null) changes.inputTokens = p.inputTokens;
        return [update('messages', p.messageId, changes)];
      }
      case 'reply.failed': {
        const p = event.payload;
        if (p.ownError === true) {
          const own: Partial<MessageRow> = { prompt: p.text, thinking: p.thinking, status: 'error', hasError: true, error: p.error, cost: p.cost, updatedAt: event.at };
          if (p.text !== '') own.isPartial = true;
          if (p.paymentSource !== null) own.paymentSource = p.paymentSource;
          return [update('messages', p.messageId, own)];
        }
        const user = update('messages', p.userMessageId, {
          hasError: true,
          error: p.error,
          status: 'error',
          updatedAt: event.at,
        });
        if (!p.keepPartial) return [user, remove('messages', p.messageId)];
        const changes: Partial<MessageRow> = {
          prompt: p.text,
          thinking: p.thinking,
          isPartial: true,
          status: 'done',
          cost: p.cost,
          updatedAt: event.at,
        };
        if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
        return [user, update('messages', p.messageId, changes)];
      }
      case 'speech.generated': {
        const p = event.payload;
        const changes: Partial<MessageRow> = { audio: p.audio, updatedAt: p.at };
        if (p.completes) {
          changes.status = 'done';
          changes.cost = p.audio.cost;
          if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
        }
        return [update('messages', p.messageId, changes)];
      }
      case 'message.webSearched': {
        const p = event.payload;
        return [update('messages', p.messageId, { webSearch: p.webSearch, updatedAt: p.at })];
      }
      case 'reply.interrupted': {
        const p = event.payload;
        return [
          update('messages', p.messageId, {
            status: 'error',
            interrupted: true,
            error: p.reason,
            updatedAt: event.at,
          }),
        ];
      }
    }
  },
};
