/**
 * The composer's attachments (spec 000 sections 3 to 5; DESIGN UI contract: button "Attach files" with an
 * input[type=file], each attachment a chip with a button "Remove {file name}"). The chips are engine data (the
 * `attachments` query: the conversation's library links not yet sent), so an upload in progress and its chip
 * survive a reload. Files come from the button, a drop on the conversation, or a paste (images; and text longer
 * than LARGE_PASTE_CHARS becomes a file when largeTextPasteToFile is on).
 */
import { useCallback, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { formatFileSize } from '../../protocol/attachments';
import type { ActionResult } from '../../protocol/engine';
import type { AddFileResult, LibraryItemView } from '../../protocol/library';
import { engine, useQuery } from '../engine';
import { statusLabel } from './LibraryPage';

/** Ours: pasted text at least this long becomes a text file (when largeTextPasteToFile is on). */
export const LARGE_PASTE_CHARS = 5_000;

async function addFiles(files: readonly File[], slug: string | null): Promise<void> {
  for (const file of files) await engine<AddFileResult>((api) => api.addFile({ name: file.name, file, slug }));
}

export function AttachButton({ slug, disabled = false }: { slug: string | null; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="attach-button" disabled={disabled} onClick={() => input.current?.click()}>
        Attach files
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-hidden="true"
        tabIndex={-1}
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          e.currentTarget.value = '';
          void addFiles(files, slug);
        }}
      />
    </>
  );
}

function Chip({ item, slug }: { item: LibraryItemView; slug: string | null }) {
  const busy = item.status === 'uploading' || item.status === 'processing' || item.status === 'not started';
  return (
    <li className="attachment-chip" data-status={item.status} title={item.error ?? undefined}>
      <span className="attachment-name">{item.name}</span>
      <span className="attachment-meta">
        {formatFileSize(item.sizeBytes)} · {statusLabel(item)}
      </span>
      {busy && <progress className="attachment-progress" max={1} value={item.progress ?? undefined} aria-label={`${item.name} progress`} />}
      <button type="button" className="attachment-remove" aria-label={`Remove ${item.name}`} onClick={() => void engine<ActionResult>((api) => api.removeAttachment(slug, item.id))}>
        ×
      </button>
    </li>
  );
}

export function AttachmentChips({ slug }: { slug: string | null }) {
  const items = useQuery({ kind: 'attachments', slug });
  if (!items || items.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Attachments">
      {items.map((item) => (
        <Chip key={item.id} item={item} slug={slug} />
      ))}
    </ul>
  );
}

/** Drop and paste handlers for the conversation area and the message input. */
export function useAttachmentInput(slug: string | null, largeTextPasteToFile: boolean) {
  const [dragging, setDragging] = useState(false);
  const onDragOver = useCallback((e: DragEvent) => {
    if (!e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    setDragging(true);
  }, []);
  const onDragLeave = useCallback(() => setDragging(false), []);
  const onDrop = useCallback(
    (e: DragEvent) => {
      if (!e.dataTransfer.types.includes('Files')) return;
      e.preventDefault();
      setDragging(false);
      void addFiles(Array.from(e.dataTransfer.files), slug);
    },
    [slug],
  );
  const onPaste = useCallback(
    (e: ClipboardEvent) => {
      const images = Array.from(e.clipboardData.files).filter((f) => f.type.startsWith('image/'));
      if (images.length > 0) {
        e.preventDefault();
        void addFiles(images.map((f, i) => (f.name && f.name !== 'image.png' ? f : new File([f], `Pasted image ${Date.now()}-${i + 1}.${f.type.split('/')[1] ?? 'png'}`, { type: f.type }))), slug);
        return;
      }
      const text = e.clipboardData.getData('text/plain');
      if (largeTextPasteToFile && text.length >= LARGE_PASTE_CHARS) {
        e.preventDefault();
        void engine<AddFileResult>((api) => api.addPastedText(text, slug));
      }
    },
    [slug, largeTextPasteToFile],
  );
  return { dragging, onDragOver, onDragLeave, onDrop, onPaste };
}
