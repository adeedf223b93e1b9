/**
 * The message queue (spec 000 sections 3 and 4): while a reply generates, Send queues the message; when the
 * pending flag clears, the next queued message is submitted (chat mode only). Queued messages are engine data
 * (events `queue.messageAdded` / `queue.messageRemoved`, folded by src/projections/queue.ts), so they survive a
 * reload and a leader hand-off, and the engine itself sends the next one when a reply ends: the tab that queued
 * it may be gone.
 *
 * When a tab shows the conversation, the next message is offered to it first (./offers.ts): the tab puts its text in
 * the message input and sends it from there (`sendQueuedMessage`), the spec's order. Otherwise the engine sends it.
 *
 * The sending is the submit flow of ../chat/commands.ts with the queue entry's id: the entry leaves the queue in the same
 * append that adds its user message, so a message is never sent twice nor lost. One that cannot be sent (say the
 * balance ran out) stays queued, with the flow's notice, until the user removes it. Reading and adding entries is
 * rooms/replies/queue-store.ts (the submit flow queues through it).
 */
import { filter } from 'rxjs';
import { makeEvent } from '../../../events/catalogue';
import type { ActionResult, QueueHandlers, SendMessageResult } from '../../../protocol/engine';
import type { QueueEntry } from '../../../projections/queue';
import type { EngineCore } from '../../core';
import { loadQueues } from '../replies/queue-store';
import { chatSubmitter } from '../chat/commands';
import { isPending } from '../replies/submit';
import { liveReplies } from '../replies/live';
import { queueOffers } from './offers';

const NO_LONGER_QUEUED = 'This message is no longer queued';

export function queueCommands(core: EngineCore): QueueHandlers {
  const submit = chatSubmitter(core);
  const draining = new Set<string>();

  const offers = queueOffers(core);

  /** Sends one queued message through the submit flow (its entry leaves the queue with its user message). */
  async function sendEntry(slug: string, next: QueueEntry, prompt: string): Promise<SendMessageResult> {
    const result = await submit(
      {
        slug,
        prompt,
        model: next.model,
        mode: 'chat',
        extraModels: next.extraModels,
        attachments: next.message.attachments,
        scrapedUrls: next.message.scrapedUrls,
        scrapedContent: next.message.scrapedContent,
        // The web search it was queued with (and its depth) runs when it is sent.
        ...(next.webSearch ? { webSearch: next.webSearch } : {}),
      },
      next.message.id,
    );
    if (!result.ok && !result.notified) {
      core.notify({ title: 'Error sending message', text: result.error, tone: 'red', durationMs: 15_000 });
    }
    return result;
  }

  /**
   * The conversation's replies ended: its next queued message goes to a tab showing it (put in the input and sent
   * from there), or, with none, or none taking it in time, is sent by the engine.
   */
  async function drain(slug: string, direct = false): Promise<void> {
    if (draining.has(slug) || isPending(core, slug) || !core.storageOk) return;
    if (!direct && offers.offered(slug)) return;
    draining.add(slug);
    try {
      const next = (await loadQueues(core)).get(slug)?.[0];
      if (!next || isPending(core, slug)) return;
      if (!direct && offers.watched(slug)) {
        offers.offer(slug, { id: next.message.id, prompt: next.message.prompt }, () => void drain(slug, true));
        return;
      }
      await sendEntry(slug, next, next.message.prompt);
    } catch (error) {
      // An engine that ended mid-send leaves the message queued: the next engine sends it.
      if (!core.ended) console.error('Queued message could not be sent', error);
    } finally {
      draining.delete(slug);
    }
  }

  // A reply ended (or a multi-model request failed to start): the pending flag may have cleared.
  liveReplies(core).live$.pipe(filter((slug) => !isPending(core, slug))).subscribe((slug) => void drain(slug));
  // After a reload or a leader hand-off: conversations with a queue and nothing generating send their next.
  void core.whenStarted().then(async () => {
    if (!core.storageOk) return;
    for (const slug of (await loadQueues(core)).keys()) void drain(slug);
  });

  return {
    async sendQueuedMessage(slug: string, id: string, prompt: string): Promise<SendMessageResult> {
      // The first tab to answer the offer takes it; the offer's fallback no longer runs.
      if (!offers.take(slug, id)) return { ok: false, error: NO_LONGER_QUEUED };
      if (draining.has(slug)) return { ok: false, error: NO_LONGER_QUEUED };
      draining.add(slug);
      try {
        const next = (await loadQueues(core)).get(slug)?.find((q) => q.message.id === id);
        if (!next) return { ok: false, error: NO_LONGER_QUEUED };
        return await sendEntry(slug, next, prompt);
      } finally {
        draining.delete(slug);
      }
    },

    async removeQueuedMessage(slug: string, id: string): Promise<ActionResult> {
      await core.whenStarted();
      const queued = (await loadQueues(core)).get(slug) ?? [];
      if (!queued.some((q) => q.message.id === id)) return { ok: false, error: NO_LONGER_QUEUED };
      const now = Date.now();
      try {
        await core.append([makeEvent('queue.messageRemoved', { conversationSlug: slug, id, reason: 'removed', at: now }, crypto.randomUUID(), now)]);
      } catch {
        return { ok: false, error: 'Local storage unavailable' };
      }
      // The message on offer was removed before a tab took it: the next one is offered instead.
      if (offers.take(slug, id)) void drain(slug);
      return { ok: true };
    },
  };
}
