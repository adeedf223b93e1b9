/**
 * Read model of the message queue (spec 000 sections 3 and 4): which messages wait to be sent, per conversation.
 *
 * The queue is short-lived and small (a few messages while a reply generates), so it has no table of its own: a
 * new table would need a schema version beyond the spec's 42. The engine folds the queue events, read from the
 * log by their indexed `type`, with this pure function; the replay tests fold an exported log the same way.
 */
import type { NewEvent, QueueMessageAddedV2 } from '../events/catalogue';

export const QUEUE_EVENT_TYPES = ['queue.messageAdded', 'queue.messageRemoved'] as const;

export type QueueEntry = Omit<QueueMessageAddedV2, 'at'> & { queuedAt: number };

/** The queue of every conversation (slug to entries, oldest first) after `events` (any events; others are skipped). */
export function foldQueue(events: Iterable<Pick<NewEvent, 'type' | 'payload' | 'at'>>): Map<string, QueueEntry[]> {
  const out = new Map<string, QueueEntry[]>();
  for (const e of events) {
    const ev = e as NewEvent;
    if (ev.type === 'queue.messageAdded') {
      const { at, ...rest } = ev.payload;
      const list = out.get(rest.conversationSlug) ?? [];
      if (!list.some((q) => q.message.id === rest.message.id)) list.push({ ...rest, queuedAt: at });
      out.set(rest.conversationSlug, list);
    } else if (ev.type === 'queue.messageRemoved') {
      const list = out.get(ev.payload.conversationSlug);
      if (!list) continue;
      const kept = list.filter((q) => q.message.id !== ev.payload.id);
      if (kept.length > 0) out.set(ev.payload.conversationSlug, kept);
      else out.delete(ev.payload.conversationSlug);
    }
  }
  return out;
}
