/**
 * Rows of the message list (pure, so it is tested in Node): single messages, the replies of one multi-model
 * request together, and the marker of where the latest request's context window began.
 */
import type { MessageView } from '../../protocol/engine';

export type ListRow =
  | { kind: 'message'; key: number; message: MessageView }
  | { kind: 'multi'; key: number; messages: MessageView[] }
  | { kind: 'omitted'; key: string; count: number };

/** Whether a message was sent as history (the rule of src/shared/history.ts isHistory). */
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

/** Rows with, for each message, the index of the row that shows it (what `updateRows` needs). */
export interface RowsOf {
  messages: readonly MessageView[];
  rows: ListRow[];
  rowOf: Int32Array;
}

export function rowsOf(messages: readonly MessageView[]): RowsOf {
  const rows = listRows(messages);
  const rowOf = new Int32Array(messages.length).fill(-1);
  const at = new Map<number, number>();
  messages.forEach((m, i) => at.set(m.id, i));
  rows.forEach((r, ri) => {
    if (r.kind === 'message') rowOf[at.get(r.message.id) as number] = ri;
    else if (r.kind === 'multi') for (const m of r.messages) rowOf[at.get(m.id) as number] = ri;
  });
  return { messages, rows, rowOf };
}

/**
 * The rows after an update that changed only some messages' contents (a streaming reply's text): the unchanged rows
 * keep their objects and nothing is rebuilt for them, so a publish into a long conversation costs what it does in a
 * short one. Anything that could move a row or the context marker (another length, id, role, request or state) builds
 * them anew.
 */
export function updateRows(prev: RowsOf | null, messages: readonly MessageView[]): RowsOf {
  if (!prev || prev.messages.length !== messages.length) return rowsOf(messages);
  let rows: ListRow[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const before = prev.messages[i] as MessageView;
    const now = messages[i] as MessageView;
    if (before === now) continue;
    if (before.id !== now.id || before.role !== now.role || before.multiModelRequest !== now.multiModelRequest || before.contextOmitted !== now.contextOmitted || isHistory(before) !== isHistory(now)) {
      return rowsOf(messages);
    }
    rows ??= prev.rows.slice();
    const ri = prev.rowOf[i] as number;
    const row = rows[ri];
    if (row?.kind === 'message') rows[ri] = { kind: 'message', key: row.key, message: now };
    else if (row?.kind === 'multi') rows[ri] = { kind: 'multi', key: row.key, messages: row.messages.map((m) => (m.id === now.id ? now : m)) };
  }
  return { messages, rows: rows ?? prev.rows, rowOf: prev.rowOf };
}

/** Spec 001 section 9, interface defaults: the conversation scrolls to the newest message 100 ms after it renders. */
export const SCROLL_DELAY_MS = 100;

/**
 * Scrolls `el` to its end `delay` ms from now, if the reader is still following the end then (`following()`): a new
 * message's images, code colours and measured heights settle after its first paint, and the list follows them.
 * Returns the cancel function (the next new message, or the list unmounting, replaces or drops the pending scroll).
 */
export function scrollToNewestLater(el: { scrollTop: number; readonly scrollHeight: number }, following: () => boolean, delay = SCROLL_DELAY_MS): () => void {
  const timer = setTimeout(() => {
    if (following()) el.scrollTop = el.scrollHeight;
  }, delay);
  return () => clearTimeout(timer);
}
