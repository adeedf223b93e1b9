/**
 * Folds a conversation page's updates (src/protocol/engine.ts ConversationUpdate) into its view. Pure: the tab's
 * hook, the engine's own `conversation` query and the stream benchmark use it alike.
 *
 * A whole view replaces what was there. A live update replaces only the streaming messages, by id: every other
 * message keeps its object, so the view's memoised rows skip them. A live update before any view, or for a message
 * the view does not show, changes nothing (the next whole view brings it).
 */
import type { ConversationUpdate, ConversationView } from './engine';

export function applyConversationUpdate(view: ConversationView | null | undefined, update: ConversationUpdate): ConversationView | null | undefined {
  if (update.kind === 'view') return update.view;
  if (!view || update.messages.length === 0) return view;
  const live = new Map(update.messages.map((m) => [m.id, m]));
  let changed = false;
  const messages = view.messages.map((m) => {
    const next = live.get(m.id);
    if (!next || (next.text === m.text && next.thinking === (m.thinking ?? '') && next.status === m.status)) return m;
    changed = true;
    return { ...m, text: next.text, thinking: next.thinking, status: next.status };
  });
  return changed ? { ...view, messages } : view;
}
