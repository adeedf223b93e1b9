/**
 * Structural checks of the library events (./library-events.ts), joined into ./validate.ts's tables. Self-contained
 * (no import of ./validate.ts, which imports this). Each check returns an error text, or null.
 */
import { LIBRARY_STATUSES } from '../protocol/attachments';
import type { EventType } from './catalogue';

type LibraryEvent = Extract<EventType, `library.${string}` | 'message.imagesExtracted'>;
type R = Record<string, unknown>;

const O = (v: unknown): v is R => typeof v === 'object' && v !== null && !Array.isArray(v);
const S = (v: unknown): boolean => typeof v === 'string';
const N = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const I = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v);
const STATUS = new Set<string>(LIBRARY_STATUSES);

const item = (v: unknown): boolean =>
  O(v) && I(v.id) && I(v.fileId) && S(v.name) && N(v.createdAt) && N(v.lastModified) && Array.isArray(v.content) && v.content.every(S) &&
  (v.type === 'image' || v.type === 'file') && S(v.status) && STATUS.has(v.status as string) && N(v.order) && N(v.processingTime);
const link = (v: unknown): boolean => O(v) && I(v.id) && I(v.libraryId);

const fast: { [K in LibraryEvent]: (p: unknown) => boolean } = {
  'library.itemAdded': (p) => O(p) && item(p.item),
  'library.itemProgressed': (p) => O(p) && I(p.id) && S(p.status) && STATUS.has(p.status as string) && (p.progress === null || N(p.progress)) && N(p.at),
  'library.itemCompleted': (p) => O(p) && I(p.id) && Array.isArray(p.content) && p.content.every(S) && N(p.processingTime) && typeof p.processedLocally === 'boolean' && N(p.at),
  'library.itemFailed': (p) => O(p) && I(p.id) && S(p.error) && N(p.at),
  'library.itemDeleted': (p) => O(p) && I(p.id) && N(p.at),
  'library.itemLinked': (p) => O(p) && link(p.link) && I((p.link as R).conversationId) && N(p.at),
  'library.messageLinked': (p) => O(p) && S(p.conversationSlug) && Array.isArray(p.links) && p.links.every((l) => link(l) && I((l as R).messageId)) && N(p.at),
  'library.itemUnlinked': (p) => O(p) && I(p.linkId) && N(p.at),
  'message.imagesExtracted': (p) =>
    O(p) && S(p.conversationSlug) && I(p.messageId) && S(p.prompt) && Array.isArray(p.images) && p.images.every((i) => O(i) && I(i.fileId) && I(i.thumbId) && S(i.mimeType) && I(i.width) && I(i.height) && I(i.bytes)) && N(p.at),
};

const shapes = Object.fromEntries(
  (Object.keys(fast) as LibraryEvent[]).map((type) => [type, (p: unknown): string | null => (fast[type](p) ? null : `payload is not a valid '${type}'`)]),
) as { [K in LibraryEvent]: (p: unknown) => string | null };

export const LIBRARY_PAYLOADS = { fast, shapes };
