/**
 * autoGenerateAudio (spec 000 section 4, "Pending flag"): when a reply this tab asked for finishes, it is read
 * aloud. Only in the tab that sent the message (another tab showing the same conversation stays quiet), not in the
 * Voice mode (which speaks its replies itself) and not for Audio mode replies (which are audio already).
 */
import { useEffect, useRef } from 'react';
import type { ConversationView } from '../../protocol/engine';
import type { Preferences } from '../../protocol/preferences';
import { composer } from '../composer-state';
import { readAloud } from './player';

/** Conversations this tab sent a message in, and when (a reply finishing long after is still read). */
const sentHere = new Set<string>();

export function markSent(slug: string): void {
  sentHere.add(slug);
}

export function useAutoRead(view: ConversationView | null | undefined, preferences: Preferences | undefined): void {
  const wasPending = useRef(false);
  useEffect(() => {
    if (!view) return;
    const pending = view.pending;
    const cleared = wasPending.current && !pending;
    wasPending.current = pending;
    if (!cleared || !preferences?.autoGenerateAudio || !sentHere.has(view.conversation.slug)) return;
    if (composer.mode === 'voice' || composer.mode === 'audio') return;
    const last = view.messages.at(-1);
    if (!last || last.role !== 'assistant' || last.status !== 'done' || last.hasError || last.text.trim() === '' || last.mode === 'audio') return;
    void readAloud(last.id);
  }, [view, preferences]);
}
