/**
 * The queue's turn in this tab (spec 000 section 4): when a conversation's replies end, the engine offers its next
 * queued message to the tabs showing it (`queueTurn`, src/worker/rooms/queue/offers.ts). This tab puts the message's
 * text in the message input and sends it from there, as Send would, so the user sees it go and can stop its reply
 * (Stop, Escape). What the user was typing meanwhile is put back once it has gone.
 */
import { useEffect, useRef, useState } from 'react';
import type { SendMessageResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { view } from '../state';

/** Takes the offers of one conversation (null: a new conversation, nothing queued); true while one is being sent. */
export function useQueueTurn(slug: string | null, onSent: (result: SendMessageResult) => void): boolean {
  const turn = useQuery({ kind: 'queueTurn', slug: slug ?? '' });
  const taken = useRef<string | null>(null);
  const sentRef = useRef(onSent);
  sentRef.current = onSent;
  const [sending, setSending] = useState(false);

  useEffect(() => {
    if (!slug || !turn || taken.current === turn.id) return;
    taken.current = turn.id;
    const typed = view.drafts[slug] ?? '';
    // Into the input first (the spec's order); the send reads it back from there on the next frame.
    view.drafts[slug] = turn.prompt;
    setSending(true);
    let started = false;
    // A hidden tab paints no frame: it leaves the message to a visible tab, or to the engine.
    const frame = requestAnimationFrame(() => {
      started = true;
      const prompt = view.drafts[slug] ?? turn.prompt;
      void engine<SendMessageResult>((api) => api.sendQueuedMessage(slug, turn.id, prompt))
        .then((result) => sentRef.current(result))
        .catch(() => undefined)
        .finally(() => {
          // Sent or not (another tab took it, or it stays queued with its notice), the input is the user's again.
          if (view.drafts[slug] === prompt) view.drafts[slug] = typed;
          setSending(false);
        });
    });
    return () => {
      if (started) return;
      // The offer went before this tab sent it (another tab took it, or the engine did).
      cancelAnimationFrame(frame);
      taken.current = null;
      if (view.drafts[slug] === turn.prompt) view.drafts[slug] = typed;
      setSending(false);
    };
  }, [slug, turn]);

  return sending;
}
