/**
 * The messages of a conversation, virtualised (@tanstack/react-virtual): only the messages in view, plus a few
 * either side, are in the DOM, so opening 10,000 messages costs about what opening 100 does. Heights are
 * measured as rows render. The list follows the end while a reply streams unless the reader scrolled up; then a
 * "Jump to latest" button brings them back.
 */
import { useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ModelInfo } from '../../protocol/api';
import type { MessageView } from '../../protocol/engine';
import { MessageItem } from './MessageItem';
import { useJumpToMessage } from '../media/jump';
import { MultiModelReplies, OmittedMarker } from './MultiModelReplies';
import { scrollToNewestLater, updateRows, type ListRow, type RowsOf } from './list-rows';

/** Within this many pixels of the end counts as "at the end": the list keeps following. */
const STICK_PX = 80;

interface Props {
  messages: readonly MessageView[];
  models: readonly ModelInfo[];
  /** Shown when there are no messages. */
  empty?: ReactNode;
  /** Only the newest messages are here yet (a long conversation opening): older ones are on their way. */
  partial?: boolean;
}

function sameKeys(a: readonly ListRow[], b: readonly ListRow[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]?.key !== b[i]?.key) return false;
  return true;
}

export function MessageList({ messages, models, empty, partial = false }: Props) {
  const scroller = useRef<HTMLElement>(null);
  const stick = useRef(true);
  const [atEnd, setAtEnd] = useState(true);
  // One lookup for all rows rather than a search of the catalogue per message.
  const names = useMemo(() => new Map(models.map((m) => [m.id, m.name])), [models]);
  const infos = useMemo(() => new Map(models.map((m) => [m.id, m])), [models]);
  // Multi-model replies share a row (side by side); a marker shows where the latest request's context began.
  const built = useRef<RowsOf | null>(null);
  const rows = useMemo(() => (built.current = updateRows(built.current, messages)).rows, [messages]);
  // The virtualiser recomputes every row's position when getItemKey changes, so it changes only when the rows' keys
  // do (a message added, removed or another branch shown), not when a streaming reply's text does.
  const shape = useRef<{ rows: readonly ListRow[]; version: number }>({ rows, version: 0 });
  if (shape.current.rows !== rows) shape.current = { rows, version: sameKeys(shape.current.rows, rows) ? shape.current.version : shape.current.version + 1 };
  const shapeVersion = shape.current.version;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- reads the current rows; changes with their keys only
  const getItemKey = useCallback((i: number) => shape.current.rows[i]?.key ?? i, [shapeVersion]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 120,
    overscan: 6,
    getItemKey,
  });

  const last = messages.at(-1);
  const totalSize = virtualizer.getTotalSize();
  // Follow the end: on open, on each new message, as the last one streams, and as measured heights settle.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages.length, last?.text.length, last?.status, totalSize]);

  // A new message of the user's own (or a new reply) brings the list back to the end, and again 100 ms after it
  // renders (spec 001 section 9), once what loads after the first paint has its height.
  useLayoutEffect(() => {
    stick.current = true;
    setAtEnd(true);
    const el = scroller.current;
    return el ? scrollToNewestLater(el, () => stick.current) : undefined;
  }, [messages.length]);

  function jumpToLatest() {
    stick.current = true;
    setAtEnd(true);
    if (rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }

  // Go to message (#message-{id}, the gallery): scroll there and stop following the end.
  useJumpToMessage(
    messages.length > 0,
    (id) => rows.findIndex((r) => (r.kind === 'message' ? r.message.id === id : r.kind === 'multi' ? r.messages.some((m) => m.id === id) : false)),
    (index) => {
      stick.current = false;
      setAtEnd(false);
      virtualizer.scrollToIndex(index, { align: 'center' });
    },
  );

  const items = virtualizer.getVirtualItems();
  return (
    <div className="messages-frame">
      <section
        ref={scroller}
        className="messages"
        aria-label="Messages"
        onScroll={(e) => {
          const el = e.currentTarget;
          const end = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
          stick.current = end;
          if (end !== atEnd) setAtEnd(end);
        }}
      >
        {messages.length === 0 && empty}
        {partial && (
          <p className="messages-loading muted" role="status">
            Loading earlier messages…
          </p>
        )}
        <div className="messages-inner" style={{ height: totalSize }}>
          {items.map((row) => {
            const r = rows[row.index];
            if (!r) return null;
            return (
              <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="message-row" style={{ transform: `translateY(${row.start}px)` }}>
                {r.kind === 'message' && <MessageItem message={r.message} modelName={names.get(r.message.model) ?? r.message.model} last={row.index === rows.length - 1} />}
                {r.kind === 'multi' && <MultiModelReplies messages={r.messages} names={names} models={infos} last={row.index === rows.length - 1} />}
                {r.kind === 'omitted' && <OmittedMarker count={r.count} />}
              </div>
            );
          })}
        </div>
      </section>
      {!atEnd && messages.length > 0 && (
        <button type="button" className="jump-latest" onClick={jumpToLatest}>
          Jump to latest
        </button>
      )}
    </div>
  );
}
