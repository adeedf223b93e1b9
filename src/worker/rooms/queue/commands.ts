/**
 * The message queue (spec 000 sections 3 and 4): while a reply generates, Send queues the message; when the
 * pending flag clears, the next queued message is submitted (chat mode only). Queued messages are engine data
 * (events `queue.messageAdded` / `queue.messageRemoved`, folded by src/projections/queue.ts), so they survive a
 * reload and a leader hand-off, and the engine itself sends the next one when a reply ends: the tab that queued
 * it may be gone.
 *
 * The sending is the submit flow of ../chat/commands.ts with the queue entry's id: the entry leaves the queue in the same
 * append that adds its user message, so a message is never sent twice nor lost. One that cannot be sent (say the
 * balance ran out) stays queued, with the flow's notice, until the user removes it. Reading and adding entries is
 * rooms/replies/queue-store.ts (the submit flow queues through it).
 */
import { filter } from 'rxjs';
import { makeEvent } from '../../../events/catalogue';
import type { ActionResult, QueueHandlers } from '../../../protocol/engine';
import type { EngineCore } from '../../core';
import { loadQueues } from '../replies/queue-store';
import { chatSubmitter } from '../chat/commands';
import { isPending } from '../replies/submit';
import { liveReplies } from '../replies/live';

export function queueCommands(core: EngineCore): QueueHandlers {
  const submit = chatSubmitter(core);
  const draining = new Set<string>();

  /** Sends the conversation's next queued message if nothing is generating there. */
  async function drain(slug: string): Promise<void> {
    if (draining.has(slug) || isPending(core, slug) || !core.storageOk) return;
    draining.add(slug);
    try {
      const next = (await loadQueues(core)).get(slug)?.[0];
      if (!next || isPending(core, slug)) return;
      const result = await submit(
        {
          slug,
          prompt: next.message.prompt,
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
    } catch (error) {
      console.error('Queued message could not be sent', error);
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
    async removeQueuedMessage(slug: string, id: string): Promise<ActionResult> {
      await core.whenStarted();
      const queued = (await loadQueues(core)).get(slug) ?? [];
      if (!queued.some((q) => q.message.id === id)) return { ok: false, error: 'This message is no longer queued' };
      const now = Date.now();
      try {
        await core.append([makeEvent('queue.messageRemoved', { conversationSlug: slug, id, reason: 'removed', at: now }, crypto.randomUUID(), now)]);
      } catch {
        return { ok: false, error: 'Local storage unavailable' };
      }
      return { ok: true };
    },
  };
}
