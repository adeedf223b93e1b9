/**
 * autoGenerateAudio (spec 000 section 4, "Pending flag"): when a reply this tab asked for finishes, it is read
 * aloud. Only in the tab that sent the message (another tab showing the same conversation stays quiet), not in the
 * Voice mode (which speaks its replies itself) and not for Audio mode replies (which are audio already). A reply is
 * recognised by the user message it answers, so one that finished before the page first saw it is still read.
 */
import { useEffect } from 'react';
import type { ConversationView } from '../../protocol/engine';
import type { Preferences } from '../../protocol/preferences';
import { composer } from '../composer-state';
import { loadPlayer } from './player-loader';

/** The user messages this tab sent whose replies are not read yet, by conversation. */
const awaiting = new Map<string, Set<number>>();

export function markSent(slug: string, userMessageId: number): void {
  if (userMessageId === 0) return; // queued: its reply is read when it is sent from this tab
  const set = awaiting.get(slug) ?? new Set<number>();
  set.add(userMessageId);
  awaiting.set(slug, set);
}

export function useAutoRead(view: ConversationView | null | undefined, preferences: Preferences | undefined): void {
  useEffect(() => {
    if (!view) return;
    const waiting = awaiting.get(view.conversation.slug);
    if (!waiting || waiting.size === 0) return;
    for (const m of view.messages) {
      if (m.role !== 'assistant' || m.parentMessageId === null || !waiting.has(m.parentMessageId)) continue;
      if (m.status === 'pending' || m.status === 'streaming') continue;
      waiting.delete(m.parentMessageId);
      if (!preferences?.autoGenerateAudio || composer.mode === 'voice' || m.mode === 'audio' || m.hasError || m.text.trim() === '') continue;
      void loadPlayer()
        .then((p) => p.readAloud(m.id))
        .catch(() => undefined);
    }
  }, [view, preferences]);
}
