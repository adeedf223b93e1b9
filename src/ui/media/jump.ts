/**
 * "Go to message" (the gallery's jump to the message that made an image): the address carries #message-{id}; once
 * the conversation's messages are there, the list scrolls that message into view and marks it for a moment.
 */
import { useLayoutEffect, useRef } from 'react';

export function useJumpToMessage(ready: boolean, indexOf: (messageId: number) => number, scrollTo: (index: number) => void): void {
  const done = useRef<string | null>(null);
  useLayoutEffect(() => {
    const hash = location.hash;
    const m = /^#message-(\d+)$/.exec(hash);
    if (!ready || !m || done.current === hash) return;
    const id = Number(m[1]);
    const index = indexOf(id);
    if (index < 0) return;
    done.current = hash;
    scrollTo(index);
    // The row renders once scrolled to: mark it when it is in the DOM.
    const mark = (tries: number) => {
      const el = document.getElementById(`message-${id}`);
      if (el) {
        el.dataset.focused = 'true';
        el.scrollIntoView({ block: 'center' });
        setTimeout(() => delete el.dataset.focused, 2500);
      } else if (tries > 0) requestAnimationFrame(() => mark(tries - 1));
    };
    requestAnimationFrame(() => mark(30));
  });
}
