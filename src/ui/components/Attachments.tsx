/**
 * The composer's attachments (spec 000 sections 3 to 5; DESIGN UI contract: button "Attach files" with an
 * input[type=file], each attachment a chip with a button "Remove {file name}"). The chips are engine data (the
 * `attachments` query: the conversation's library links not yet sent), so an upload in progress and its chip
 * survive a reload. Files come from the button, a drop on the conversation, or a paste (images; and text longer
 * than LARGE_PASTE_CHARS becomes a file when largeTextPasteToFile is on).
 */
import { useCallback, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { formatFileSize, INLINE_IMAGE_TOKENS } from '../../protocol/attachments';
import type { ActionResult, MessageView } from '../../protocol/engine';
import type { AddFileResult, LibraryItemView } from '../../protocol/library';
import { engine } from '../engine';
import { statusLabel } from './library-status';
import { FileThumb } from './FileThumb';

/** Ours: pasted text at least this long becomes a text file (when largeTextPasteToFile is on). */
export const LARGE_PASTE_CHARS = 5_000;

async function addFiles(files: readonly File[], slug: string | null): Promise<void> {
  for (const file of files) await engine<AddFileResult>((api) => api.addFile({ name: file.name, file, slug }));
}

export function AttachButton({ slug, disabled = false }: { slug: string | null; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="attach-button" aria-label="Attach files" title="Attach files" disabled={disabled} onClick={() => input.current?.click()}>
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          <path d="M21.4 11.1 12.2 20.3a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" />
        </svg>
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
    <li className="attachment-chip" data-status={item.status} title={item.error ? `${item.name}: ${item.error}` : item.name}>
      <FileThumb fileId={item.thumbFileId} type={item.type} fileType={item.fileType} />
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

export function AttachmentChips({ slug, items }: { slug: string | null; items: readonly LibraryItemView[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Attachments">
      {items.map((item) => (
        <Chip key={item.id} item={item} slug={slug} />
      ))}
    </ul>
  );
}

/** Tokens the composer's attachments add to the input: 85 per image a vision model sees inline, a document's text. */
export function attachmentTokens(items: readonly LibraryItemView[] | undefined, vision: boolean): number {
  let tokens = 0;
  for (const item of items ?? []) tokens += item.type === 'image' ? (vision ? INLINE_IMAGE_TOKENS : 0) : Math.ceil(item.textChars / 4);
  return tokens;
}

/** The files a sent message carries: inline images, chips with name and size, descriptions and cut notes. */
export function MessageFiles({ message }: { message: Pick<MessageView, 'prompt' | 'files'> }) {
  const files = message.files ?? [];
  // Images sent before thumbnails were kept (issue 16) show from the prompt's inline copy.
  const thumbs = files.some((f) => f.thumbId !== undefined);
  const images = thumbs || !Array.isArray(message.prompt) ? [] : message.prompt.flatMap((p) => (p.type === 'image_url' && p.image_url.url.startsWith('data:image/') ? [p.image_url.url] : []));
  if (images.length === 0 && files.length === 0) return null;
  return (
    <div className="message-files">
      {images.length > 0 && (
        <div className="message-images">
          {images.map((url, i) => (
            <img key={i} src={url} alt={files.filter((f) => f.type === 'image')[i]?.name ?? `Image ${i + 1}`} />
          ))}
        </div>
      )}
      {files.length > 0 && (
        <ul className="attachment-chips" aria-label="Attached files">
          {files.map((f) => (
            <li key={f.libraryId} className="attachment-chip attachment-chip-sent" title={f.name}>
              <FileThumb fileId={f.thumbId} type={f.type} fileType={f.name.split('.').pop() ?? ''} className={f.thumbId !== undefined ? 'attachment-thumb attachment-thumb-sent' : 'attachment-thumb'} />
              <span className="attachment-name">{f.name}</span>
              <span className="attachment-meta">{formatFileSize(f.sizeBytes)}</span>
            </li>
          ))}
        </ul>
      )}
      {files.map((f) =>
        f.type === 'image' && f.text !== undefined ? (
          <details key={`d${f.libraryId}`} className="image-description">
            <summary>{`Description of ${f.name}`}</summary>
            <p>{f.text}</p>
          </details>
        ) : f.note ? (
          <p key={`n${f.libraryId}`} className="message-note" role="note">
            {f.note}
          </p>
        ) : null,
      )}
    </div>
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
  // Leaving for one of the zone's own children is not leaving the zone.
  const onDragLeave = useCallback((e: DragEvent) => {
    if (!(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget))) setDragging(false);
  }, []);
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
