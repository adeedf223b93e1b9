/**
 * Rows of the message list (pure, so it is tested in Node): single messages, the replies of one multi-model
 * request together, and the marker of where the latest request's context window began.
 */
import type { MessageView } from '../../protocol/engine';

export type ListRow =
  | { kind: 'message'; key: number; message: MessageView }
  | { kind: 'multi'; key: number; messages: MessageView[] }
  | { kind: 'omitted'; key: string; count: number };

/** Whether a message was sent as history (the rule of src/worker/services/history.ts isHistory). */
function isHistory(m: MessageView): boolean {
  return m.status === 'done' && !m.hasError && m.role !== 'tool';
}

/**
 * The list's rows: consecutive replies sharing a multi-model request become one row; the latest prompt that left
 * older messages out gets a marker before the first message its request carried.
 */
export function listRows(messages: readonly MessageView[]): ListRow[] {
  let markerBefore = -1;
  let omitted = 0;
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  const prompt = lastUser >= 0 ? messages[lastUser] : undefined;
  if (prompt?.contextOmitted) {
    omitted = prompt.contextOmitted;
    let seen = 0;
    for (let i = 0; i < lastUser; i++) {
      if (!isHistory(messages[i] as MessageView)) continue;
      if (seen === omitted) {
        markerBefore = i;
        break;
      }
      seen++;
    }
    if (markerBefore < 0) markerBefore = lastUser;
  }
  const rows: ListRow[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as MessageView;
    if (i === markerBefore) rows.push({ kind: 'omitted', key: `omitted-${m.id}`, count: omitted });
    const group = m.multiModelRequest;
    if (group !== undefined && m.role === 'assistant') {
      const prev = rows.at(-1);
      if (prev?.kind === 'multi' && prev.messages[0]?.multiModelRequest === group) {
        prev.messages.push(m);
        continue;
      }
      rows.push({ kind: 'multi', key: m.id, messages: [m] });
      continue;
    }
    rows.push({ kind: 'message', key: m.id, message: m });
  }
  return rows;
}
