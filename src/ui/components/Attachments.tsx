/**
 * The composer's attachments (spec 000 sections 3 to 5; DESIGN UI contract: button "Attach files" with an
 * input[type=file], each attachment a chip with a button "Remove {file name}"). The chips are engine data (the
 * `attachments` query: the conversation's library links not yet sent), so an upload in progress and its chip
 * survive a reload. Files come from the button, a drop on the conversation, or a paste (images; and text longer
 * than LARGE_PASTE_CHARS becomes a file when largeTextPasteToFile is on). The chips and a sent message's files are
 * in ./AttachmentFiles.tsx, a chunk loaded with the first file.
 */
import { lazy, Suspense, useCallback, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { INLINE_IMAGE_TOKENS } from '../../protocol/attachments';
import type { AddFileResult, LibraryItemView } from '../../protocol/library';
import { engine } from '../engine';

const Chips = lazy(() => import('./AttachmentFiles'));

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

/** The composer's files not sent yet (./AttachmentFiles.tsx, loaded with the first one). */
export function AttachmentChips({ slug, items }: { slug: string | null; items: readonly LibraryItemView[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <Chips slug={slug} items={items} />
    </Suspense>
  );
}

/** Tokens the composer's attachments add to the input: 85 per image a vision model sees inline, a document's text. */
export function attachmentTokens(items: readonly LibraryItemView[] | undefined, vision: boolean): number {
  let tokens = 0;
  for (const item of items ?? []) tokens += item.type === 'image' ? (vision ? INLINE_IMAGE_TOKENS : 0) : Math.ceil(item.textChars / 4);
  return tokens;
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
