/**
 * Read model: the `messages` table. A message is put when added; a reply's lifecycle (started, checkpointed,
 * completed, failed, interrupted) updates the assistant message in place (spec 000 section 4, submit flow).
 */
import { audioUrlsOf, normalizeTimestamp } from '../events/model';
import type { MessageRow } from '../events/model';
import { defineProjection } from './projection';
import { deleteWhere, put, remove, update, updateWhere } from './writes';
import type { Write } from './writes';
import { mediaMessageMaterializers } from './media';

export const messagesProjection = defineProjection({
  name: 'messages',
  // v2: reply.started records the reply's requestId on the message (an engine that takes over resumes by it).
  // v3: image and video events (./media.ts).
  // v4: speech.generated keeps a message's audio.
  // v5: ... and its audioUrls (spec 000 section 3), one reference per chunk made.
  version: 5,
  tables: ['messages'],
  // The events of every chat turn, as writers (a fold writes them straight into its store).
  writers: {
    'message.added': ({ message: m }, _, out) => {
      const ts = normalizeTimestamp(m.timestamp);
      out.put('messages', ts === m.timestamp ? m : { ...m, timestamp: ts });
    },
    'reply.started': (p, event, out) => out.update('messages', p.messageId, { status: 'streaming', requestId: p.requestId, updatedAt: event.at }),
    'reply.checkpointed': (p, event, out) => out.update('messages', p.messageId, { prompt: p.text, thinking: p.thinking, updatedAt: event.at }),
    'reply.completed': (p, event, out) => {
      const changes: Partial<MessageRow> = { prompt: p.text, thinking: p.thinking, status: 'done', cost: p.cost, updatedAt: event.at };
      if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
      if (p.outputTokens !== null) changes.outputTokens = p.outputTokens;
      if (p.inputTokens != null) changes.inputTokens = p.inputTokens;
      if (p.stopped === true) changes.stopped = true;
      out.update('messages', p.messageId, changes);
    },
    'reply.failed': (p, event, out) => {
      if (p.ownError === true) {
        const own: Partial<MessageRow> = { prompt: p.text, thinking: p.thinking, status: 'error', hasError: true, error: p.error, cost: p.cost, updatedAt: event.at };
        if (p.text !== '') own.isPartial = true;
        if (p.paymentSource !== null) own.paymentSource = p.paymentSource;
        out.update('messages', p.messageId, own);
        return;
      }
      out.update('messages', p.userMessageId, { hasError: true, error: p.error, status: 'error', updatedAt: event.at });
      if (!p.keepPartial) {
        out.remove('messages', p.messageId);
        return;
      }
      const changes: Partial<MessageRow> = { prompt: p.text, thinking: p.thinking, isPartial: true, status: 'done', cost: p.cost, updatedAt: event.at };
      if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
      out.update('messages', p.messageId, changes);
    },
    'reply.interrupted': (p, event, out) => out.update('messages', p.messageId, { status: 'error', interrupted: true, error: p.reason, updatedAt: event.at }),
  },
  materializers: {
    // A deleted conversation keeps its messages through the undo window; they go when it is purged.
    'conversation.purged': (p) => [deleteWhere('messages', 'conversationSlug', p.slug)],
    'message.branched': (p) => [update('messages', p.messageId, { alternativeGroup: p.alternativeGroup, branchIndex: 0, isActiveBranch: false, updatedAt: p.at })],
    'branch.activated': (p) => [
      updateWhere('messages', 'alternativeGroup', p.alternativeGroup, { isActiveBranch: false }),
      update('messages', p.messageId, { isActiveBranch: true, updatedAt: p.at }),
    ],
    'message.deleted': (p) => {
      const writes: Write[] = p.messageIds.map((id) => remove('messages', id));
      for (const r of p.reparented) writes.push(update('messages', r.messageId, { parentMessageId: r.parentMessageId, updatedAt: p.at }));
      if (p.activated !== null) writes.push(update('messages', p.activated, { isActiveBranch: true, updatedAt: p.at }));
      for (const id of p.ungrouped) writes.push(update('messages', id, { alternativeGroup: null, branchIndex: 0, isActiveBranch: true, updatedAt: p.at }));
      return writes;
    },
    // Undo of a deletion: the rows as they were, their children back under them, the branch states as before.
    'message.restored': (p) => [
      ...p.messages.map((m) => put('messages', m)),
      ...p.reparented.map((r) => update('messages', r.messageId, { parentMessageId: r.parentMessageId, updatedAt: p.at })),
      ...p.branches.map((b) => update('messages', b.messageId, { alternativeGroup: b.alternativeGroup, branchIndex: b.branchIndex, isActiveBranch: b.isActiveBranch, updatedAt: p.at })),
    ],
    'message.retried': (p) => [update('messages', p.messageId, { hasError: undefined, error: undefined, status: 'done', updatedAt: p.at })],
    'reply.continued': (p) => [
      update('messages', p.messageId, { status: 'streaming', requestId: p.requestId, continuedFrom: { text: p.text, thinking: p.thinking }, isPartial: undefined, stopped: undefined, updatedAt: p.at }),
    ],
    'conversation.duplicated': (p) => p.messages.map((m) => put('messages', m)),
    // The background migration moved a message's inline images into its images field (src/worker/rooms/library/migration.ts).
    'message.imagesExtracted': (p) => [update('messages', p.messageId, { prompt: p.prompt, images: p.images })],
    ...mediaMessageMaterializers,
    'speech.generated': (p) => {
      const changes: Partial<MessageRow> = { audio: p.audio, audioUrls: audioUrlsOf(p.audio), updatedAt: p.at };
      if (p.completes) {
        changes.status = 'done';
        changes.cost = p.audio.cost;
        if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
      }
      return [update('messages', p.messageId, changes)];
    },
    'message.webSearched': (p) => [update('messages', p.messageId, { webSearch: p.webSearch, updatedAt: p.at })],
  },
});
