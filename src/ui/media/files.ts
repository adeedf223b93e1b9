/**
 * Files of the local database shown in the page (images, thumbnails, videos): the engine hands each over as a
 * Blob (a reference, not a copy), shown through an object URL that is revoked when nothing shows it any more.
 * URLs are shared by file id while in use, so a thumbnail in a message and in the gallery is one URL.
 */
import { useEffect, useState } from 'react';
import { engine } from '../engine';

interface Entry {
  url: Promise<string | null>;
  users: number;
}
const entries = new Map<number, Entry>();

function acquire(fileId: number): Promise<string | null> {
  let e = entries.get(fileId);
  if (!e) {
    e = { url: engine((api) => api.getFile(fileId)).then((blob) => (blob ? URL.createObjectURL(blob) : null)), users: 0 };
    entries.set(fileId, e);
  }
  e.users++;
  return e.url;
}

function release(fileId: number): void {
  const e = entries.get(fileId);
  if (!e || --e.users > 0) return;
  entries.delete(fileId);
  // Later, not now: an element being removed (a video mid-load) may still read it.
  void e.url.then((u) => u && setTimeout(() => URL.revokeObjectURL(u), 5_000));
}

/** An object URL of a file while the component shows it (undefined while loading, null when the file is gone). */
export function useFileUrl(fileId: number | undefined, enabled = true): string | null | undefined {
  const [url, setUrl] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    if (fileId === undefined || !enabled) return;
    let live = true;
    void acquire(fileId).then((u) => live && setUrl(u));
    return () => {
      live = false;
      release(fileId);
    };
  }, [fileId, enabled]);
  return url;
}

/** Saves a file to the user's downloads. */
export async function downloadFile(fileId: number, name: string): Promise<void> {
  const blob = await engine((api) => api.getFile(fileId));
  if (!blob) return;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name for an image: the prompt's first words and its type. */
export function imageFileName(prompt: string, mimeType: string, index = 0): string {
  const words = prompt.toLowerCase().match(/[a-z0-9]+/g)?.slice(0, 6).join('-') || 'image';
  const ext = mimeType.split('/')[1]?.replace('jpeg', 'jpg') ?? 'png';
  return `${words}${index > 0 ? `-${index + 1}` : ''}.${ext}`;
}
