/**
 * Attachment chips (./Attachments.tsx): the composer's files not sent yet, each with its thumbnail, size, status and
 * "Remove {file name}", and the files a sent message carries. A chunk of its own: the composer loads it when it has
 * a file; the message list imports it with its rows.
 */
import { formatFileSize } from '../../protocol/attachments';
import type { ActionResult, MessageView } from '../../protocol/engine';
import type { LibraryItemView } from '../../protocol/library';
import { engine } from '../engine';
import { statusLabel } from './library-status';
import { FileThumb } from './FileThumb';

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

export default function AttachmentChips({ slug, items }: { slug: string | null; items: readonly LibraryItemView[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Attachments">
      {items.map((item) => (
        <Chip key={item.id} item={item} slug={slug} />
      ))}
    </ul>
  );
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
