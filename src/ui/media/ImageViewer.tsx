/**
 * The image viewer (spec 001 section 2: "image gallery modal with previous and next navigation"): one image full
 * size, Previous / Next wrapping around, arrow keys, Escape to close, Download, Favourite and Go to message.
 * Opened from a message's images or from the gallery; rendered once by the app frame.
 */
import { useEffect, useRef } from 'react';
import { useSnapshot } from 'valtio';
import type { ActionResult } from '../../protocol/engine';
import { engine } from '../engine';
import { navigate } from '../router';
import { downloadFile, imageFileName, useFileUrl } from './files';
import { media, stepIndex } from './media-state';

export function ImageViewer() {
  const { viewer } = useSnapshot(media);
  const dialog = useRef<HTMLDivElement>(null);
  const current = viewer?.images[viewer.index];
  const url = useFileUrl(current?.fileId);
  const count = viewer?.images.length ?? 0;

  useEffect(() => {
    if (!viewer) return;
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (!media.viewer) return;
      if (e.key === 'Escape') media.viewer = null;
      else if (e.key === 'ArrowLeft') media.viewer.index = stepIndex(media.viewer.index, media.viewer.images.length, -1);
      else if (e.key === 'ArrowRight') media.viewer.index = stepIndex(media.viewer.index, media.viewer.images.length, 1);
      else return;
      e.preventDefault();
      e.stopPropagation();
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      opener?.focus?.();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per opening; the index moves inside
  }, [viewer === null]);

  if (!viewer || !current) return null;
  const step = (delta: -1 | 1) => {
    if (media.viewer) media.viewer.index = stepIndex(media.viewer.index, media.viewer.images.length, delta);
  };
  const toggleFavourite = () => {
    const next = !current.favourite;
    const at = viewer.index;
    void engine<ActionResult>((api) => api.setImageFavourite(current.fileId, next)).then((r) => {
      const img = media.viewer?.images[at];
      if (r.ok && img) img.favourite = next;
    });
  };
  return (
    <div className="viewer-backdrop" onClick={(e) => e.target === e.currentTarget && (media.viewer = null)}>
      <div ref={dialog} className="viewer" role="dialog" aria-modal="true" aria-label="Image viewer" tabIndex={-1}>
        <div className="viewer-bar">
          <span className="viewer-count" aria-live="polite">
            {viewer.index + 1} / {count}
          </span>
          <span className="viewer-prompt" title={current.prompt}>
            {current.prompt}
          </span>
          <span className="viewer-actions">
            {current.favourite !== undefined && (
              <button type="button" aria-pressed={current.favourite} onClick={toggleFavourite}>
                {current.favourite ? '★ Favourite' : '☆ Favourite'}
              </button>
            )}
            <button type="button" onClick={() => void downloadFile(current.fileId, imageFileName(current.prompt, current.mimeType))}>
              Download
            </button>
            {current.slug && current.messageId !== undefined && (
              <button
                type="button"
                onClick={() => {
                  media.viewer = null;
                  navigate(`/conversation/${current.slug}#message-${current.messageId}`);
                }}
              >
                Go to message
              </button>
            )}
            <button type="button" onClick={() => (media.viewer = null)}>
              Close
            </button>
          </span>
        </div>
        <div className="viewer-stage">
          {count > 1 && (
            <button type="button" className="viewer-nav prev" aria-label="Previous image" onClick={() => step(-1)}>
              ‹
            </button>
          )}
          {url ? <img src={url} alt={current.prompt || 'Generated image'} /> : <span className="muted">{url === null ? 'This image is no longer stored.' : 'Loading…'}</span>}
          {count > 1 && (
            <button type="button" className="viewer-nav next" aria-label="Next image" onClick={() => step(1)}>
              ›
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
