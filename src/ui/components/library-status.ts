/** A library file's status in words (the Library page and the composer's attachment chips). */
import type { LibraryItemView } from '../../protocol/library';

export function statusLabel(item: Pick<LibraryItemView, 'status' | 'progress'>): string {
  const pct = item.progress !== null && item.progress > 0 && item.progress < 1 ? ` ${Math.round(item.progress * 100)}%` : '';
  switch (item.status) {
    case 'not started':
      return 'Not started';
    case 'uploading':
      return `Uploading${pct}`;
    case 'processing':
      return `Processing${pct}`;
    case 'completed':
      return 'Ready';
    case 'error':
      return 'Failed';
  }
}
