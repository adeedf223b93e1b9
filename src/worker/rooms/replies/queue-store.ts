/**
 * The queue's store (spec 000 sections 3 and 4): reading every conversation's queue from the log's queue events,
 * the view of one, and adding a message to one. Kept apart from the queue's commands (rooms/queue/commands.ts), which
 * send queued messages through the submit flow: the submit flow queues through this module, so neither imports
 * the other's module and the commands stay free of import cycles.
 */
import { makeEvent } from '../../../events/catalogue';
import { upcast } from '../../../events/upcasters';
import type { QueuedMessage } from '../../../events/model';
import type { QueuedView, SendMessageInput, SendMessageResult } from '../../../protocol/engine';
import { foldQueue, QUEUE_EVENT_TYPES, type QueueEntry } from '../../../projections/queue';
import type { EngineCore } from '../../core';
import { MESSAGE_REQUIRED } from '../../../shared/messages';

/** Every conversation's queue, folded from the log's queue events (read through the `type` index). */
export async function loadQueues(core: EngineCore): Promise<Map<string, QueueEntry[]>> {
  const rows = await core.db.events.where('type').anyOf([...QUEUE_EVENT_TYPES]).sortBy('seq');
  // Upcast: a message queued by an older build (queue.messageAdded v1) is read as v2.
  return foldQueue(rows.map((r) => upcast(r)));
}

/** The queue entries as the view lists them (the message, and its web search when it has one). */
export async function queuedViews(core: EngineCore, slug: string): Promise<QueuedView[]> {
  return ((await loadQueues(core)).get(slug) ?? []).map((q) => (q.webSearch ? { ...q.message, webSearch: q.webSearch } : q.message));
}

/** Puts a message in the conversation's queue (called by the submit flow while the conversation is pending). */
export async function enqueueMessage(core: EngineCore, slug: string, input: SendMessageInput, model: string, extraModels: string[], now: number): Promise<SendMessageResult> {
  const message: QueuedMessage = {
    id: crypto.randomUUID(),
    prompt: input.prompt,
    attachments: [...new Set(input.attachments ?? [])],
    scrapedUrls: [...new Set(input.scrapedUrls ?? [])],
    scrapedContent: input.scrapedContent ?? [],
    timestamp: now,
  };
  // Spec 000 section 5: queued input needs a prompt, an attachment or scraped content.
  if (message.prompt.trim() === '' && message.attachments.length === 0 && message.scrapedContent.length === 0) {
    return { ok: false, error: MESSAGE_REQUIRED };
  }
  try {
    const webSearch = input.webSearch ? { depth: input.webSearch.depth } : null;
    await core.append([makeEvent('queue.messageAdded', { conversationSlug: slug, message, model, extraModels, webSearch, at: now }, crypto.randomUUID(), now)]);
  } catch {
    return { ok: false, error: 'Local storage unavailable', notified: true };
  }
  return { ok: true, slug, userMessageId: 0, queued: true };
}
