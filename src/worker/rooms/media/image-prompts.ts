/**
 * The prompt an assistant image was made from is its user message's (the parent's) text: the conversation view
 * gives each reply that carries images that text as `imagePrompt`, which the image viewer shows as its caption and
 * alt text, as the gallery does (src/worker/rooms/media/queries.ts).
 */
import type { MessageView } from '../../../protocol/engine';

export function withImagePrompts(messages: MessageView[]): MessageView[] {
  let any = false;
  for (const m of messages) if (m.role === 'assistant' && m.images && m.images.length > 0) any = true;
  if (!any) return messages;
  const byId = new Map(messages.map((m) => [m.id, m]));
  return messages.map((m) => {
    if (m.role !== 'assistant' || !m.images || m.images.length === 0 || m.parentMessageId === null) return m;
    const parent = byId.get(m.parentMessageId);
    return parent && parent.role === 'user' ? { ...m, imagePrompt: parent.text } : m;
  });
}
