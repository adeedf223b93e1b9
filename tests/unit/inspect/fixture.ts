/**
 * A deterministic log for the inspector's tests: the sample chat log (3 conversations at a time) with global events
 * (preferences), a queued message and a branch (regenerate) mixed in at fixed places.
 */
import { makeEvent } from '../../../src/events/catalogue';
import type { NewEvent } from '../../../src/events/catalogue';
import type { MessageRow, QueuedMessage } from '../../../src/events/model';
import { generateSampleLog, sampleMessage } from '../../bench/log-append/sample-log';

export function inspectorLog(events = 300): NewEvent[] {
  const base = generateSampleLog({ events, seed: 21, activeConversations: 3 });
  const out = [...base];
  const at = (i: number) => (out[i] as NewEvent).at;
  // A global event early on, and another late.
  out.splice(10, 0, makeEvent('preferences.changed', { changes: { theme: 'light' }, at: at(9) }, 'x-pref-1', at(9)));
  out.splice(out.length - 5, 0, makeEvent('preferences.changed', { changes: { maxTokens: 2048 }, at: at(out.length - 6) }, 'x-pref-2', at(out.length - 6)));
  // A queued message in the first conversation, then taken.
  const first = out.find((e): e is Extract<NewEvent, { type: 'message.added' }> => e.type === 'message.added')!.payload.message;
  const queued: QueuedMessage = { id: 'qm-1', prompt: 'send this after the reply', attachments: [], scrapedUrls: [], scrapedContent: [], timestamp: first.timestamp + 1 };
  out.splice(20, 0, makeEvent('queue.messageAdded', { conversationSlug: first.conversationSlug, message: queued, model: first.model, extraModels: [], webSearch: null, at: at(19) }, 'x-q-1', at(19)));
  out.splice(40, 0, makeEvent('queue.messageRemoved', { conversationSlug: first.conversationSlug, id: 'qm-1', reason: 'submitted', at: at(39) }, 'x-q-2', at(39)));
  // A regenerate of the last finished reply of some conversation: a branch with two members, the new one active.
  const done = [...out].reverse().find((e): e is Extract<NewEvent, { type: 'reply.completed' }> => e.type === 'reply.completed')!.payload;
  const original = base.find((e) => e.type === 'message.added' && e.payload.message.id === done.messageId)!.payload as { message: MessageRow };
  const t = out[out.length - 1]!.at + 1000;
  const alt = sampleMessage({ ...original.message, id: 100_000, timestamp: t, updatedAt: t, prompt: 'another answer', status: 'done', alternativeGroup: 'g-1', branchIndex: 1, isActiveBranch: true });
  out.push(
    makeEvent('message.branched', { conversationSlug: done.conversationSlug, messageId: done.messageId, alternativeGroup: 'g-1', at: t }, 'x-b-1', t),
    makeEvent('message.added', { message: alt }, 'x-b-2', t),
    makeEvent('branch.activated', { conversationSlug: done.conversationSlug, alternativeGroup: 'g-1', messageId: alt.id, at: t }, 'x-b-3', t),
  );
  return out;
}
