/**
 * The gallery (route /gallery): every generated image across conversations, newest first, at most 1000 (spec 001
 * sections 5 and 9). A tile opens the image viewer (previous / next wrapping around, arrow keys, favourites, Go to
 * message). Thumbnails load only when their tile scrolls into view, so 1000 images cost what the visible ones do.
 */
import { useEffect, useRef, useState } from 'react';
import type { GalleryItem } from '../../protocol/engine';
import { useQuery } from '../engine';
import { useFileUrl } from './files';
import { openViewer } from './media-state';

function useInView<T extends Element>(): [React.RefObject<T | null>, boolean] {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || seen) return;
    if (typeof IntersectionObserver === 'undefined') return setSeen(true);
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setSeen(true), { rootMargin: '200px' });
    io.observe(el);
    return () => io.disconnect();
  }, [seen]);
  return [ref, seen];
}

function Tile({ item, index, onOpen }: { item: GalleryItem; index: number; onOpen(index: number): void }) {
  const [ref, seen] = useInView<HTMLButtonElement>();
  const url = useFileUrl(item.thumbId, seen);
  return (
    <li className="gallery-tile">
      <button ref={ref} type="button" className="thumb" aria-label={`Open image ${index + 1}: ${item.prompt || item.model}`} onClick={() => onOpen(index)}>
        {url && <img src={url} alt="" />}
        {item.favourite && (
          <span className="tile-star" aria-label="Favourite">
            ★
          </span>
        )}
      </button>
    </li>
  );
}

export function GalleryPage() {
  const items = useQuery({ kind: 'gallery' });
  const [favouritesOnly, setFavouritesOnly] = useState(false);
  useEffect(() => {
    document.title = 'Gallery · Parley';
  }, []);
  const shown = (items ?? []).filter((i) => !favouritesOnly || i.favourite);
  const open = (index: number) =>
    openViewer(
      shown.map((i) => ({ fileId: i.fileId, mimeType: i.mimeType, width: i.width, height: i.height, prompt: i.prompt, slug: i.slug, messageId: i.messageId, favourite: i.favourite })),
      index,
    );
  return (
    <div className="gallery-page">
      <header className="gallery-header">
        <h1>Gallery</h1>
        <label className="gallery-filter">
          <input type="checkbox" checked={favouritesOnly} onChange={(e) => setFavouritesOnly(e.target.checked)} /> Favourites only
        </label>
        <span className="muted">{items === undefined ? 'Loading…' : `${shown.length} image${shown.length === 1 ? '' : 's'}`}</span>
      </header>
      {items !== undefined && shown.length === 0 ? (
        <p className="muted gallery-empty">{favouritesOnly ? 'No favourites yet: open an image and press Favourite.' : 'Images you generate in any conversation appear here.'}</p>
      ) : (
        <ul className="gallery-grid" aria-label="Images">
          {shown.map((item, i) => (
            <Tile key={item.fileId} item={item} index={i} onOpen={open} />
          ))}
        </ul>
      )}
    </div>
  );
}
