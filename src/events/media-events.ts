/**
 * Events of media (images, video, model settings), web search and speech. Each is declared once in `mediaEvents`
 * below (./define.ts); the catalogue (./catalogue.ts) joins it. Pure: no DOM, no clock.
 */
import type { ImageRef, MessageAudio, ModelSettings, WebSearchRecord } from './model';
import type { PaymentSource } from '../protocol/stream';
import { bool, checkShape, int, isObj, nullable, num, oneOf, paymentSource, str } from './checks';
import type { Check, R, Shape } from './checks';
import { checked, defineEvent, NOTHING, page, pageAndList, shape } from './define';
import { replyBase } from './chat-events';

// ---- media (src/worker/rooms/media/commands.ts, src/worker/rooms/media/video-poller.ts) ----

/** The images of a pending image message arrived; their bytes were stored in `files` before this was appended. */
export interface ImageGeneratedV1 {
  messageId: number;
  conversationSlug: string;
  images: ImageRef[];
  /** The images are the quadrants of one grid (splitImages). */
  splitImages: boolean;
  taskId: string | null;
  cost: number;
  paymentSource: PaymentSource | null;
  isNSFW: boolean;
  at: number;
}
/**
 * The image call answered without images: a recommendation of another model, or an explicit prompt that needs
 * explicit mode. `text` is what the assistant message says.
 */
export interface ImageAnsweredV1 {
  messageId: number;
  conversationSlug: string;
  text: string;
  recommendedModel: string | null;
  recommendedModelName: string | null;
  isNSFW: boolean;
  requiresExplicitMode: boolean;
  at: number;
}
/** An image was marked (or unmarked) a favourite in the gallery. */
export interface ImageFavouritedV1 {
  fileId: number;
  favourite: boolean;
  at: number;
}
/** A video job was accepted by the gateway; its status is then polled (spec 000 section 4). */
export interface VideoRequestedV1 {
  messageId: number;
  conversationSlug: string;
  runId: string;
  model: string;
  at: number;
}
/** A video job's status changed: processing, completed (with its file), error (with a note) or cancelled. */
export interface VideoStatusChangedV1 {
  messageId: number;
  conversationSlug: string;
  status: 'processing' | 'completed' | 'error' | 'cancelled';
  videoUrl: string | null;
  videoFileId: number | null;
  error: string | null;
  cost: number;
  paymentSource: PaymentSource | null;
  at: number;
}
/** A model's settings changed (only the fields given; the rest stay). */
export interface ModelSettingsChangedV1 {
  modelId: string;
  settings: ModelSettings;
  at: number;
}

/**
 * A web search ran for a user message before its reply (docs/events.md): its numbered sources go with the message
 * to the model (and to every regeneration of its reply, which does not search again) and its replies cite them.
 */
export interface MessageWebSearchedV1 {
  conversationSlug: string;
  messageId: number;
  webSearch: WebSearchRecord;
  at: number;
}

/**
 * Speech of a message was made, chunk by chunk (src/worker/rooms/speech/): the whole take so far, appended after
 * each chunk (its Blob is stored in `files` first). `completes`: an Audio mode reply whose speech is finished; the
 * message is then done, with the take's cost.
 */
export interface SpeechGeneratedV1 {
  messageId: number;
  conversationSlug: string;
  audio: MessageAudio;
  completes: boolean;
  paymentSource: PaymentSource | null;
  at: number;
}

// ---- the declarations ----

const imageRef: Shape = { fileId: int, thumbId: int, mimeType: str, width: int, height: int, bytes: int };
const imageRefs: Check = (v) => Array.isArray(v) && v.every((x) => checkShape(x, imageRef, '') === null);
/** A setting's value; null clears it (back to the model's default). */
const settingValue: Check = (v) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** message.webSearched: the record and each of its sources. */
function checkWebSearched(p: unknown): string | null {
  const top = checkShape(p, { conversationSlug: str, messageId: int, webSearch: isObj, at: num }, 'payload');
  if (top !== null) return top;
  const w = (p as R).webSearch as R;
  const rec = checkShape(w, { depth: oneOf('standard', 'deep'), provider: str, sources: Array.isArray, cost: num, paymentSource, at: num }, 'payload.webSearch');
  if (rec !== null) return rec;
  const sources = w.sources as unknown[];
  for (let i = 0; i < sources.length; i++) {
    const bad = checkShape(sources[i], { title: str, url: str, snippet: str }, `payload.webSearch.sources[${i}]`);
    if (bad !== null) return bad;
  }
  return null;
}

/** speech.generated: the take, each chunk null or a file reference, failed chunk indexes within the count. */
function checkSpeechGenerated(p: unknown): string | null {
  const top = checkShape(p, { messageId: int, conversationSlug: str, audio: isObj, completes: (v) => typeof v === 'boolean', paymentSource: nullable(paymentSource), at: num }, 'payload');
  if (top !== null) return top;
  const a = (p as R).audio as R;
  const take = checkShape(a, { key: str, model: str, voice: str, speed: num, chunkCount: int, chunks: Array.isArray, failed: Array.isArray, cost: num }, 'payload.audio');
  if (take !== null) return take;
  const chunks = a.chunks as unknown[];
  const count = a.chunkCount as number;
  if (count < 1 || chunks.length !== count) return 'payload.audio.chunks must hold chunkCount entries';
  for (let i = 0; i < chunks.length; i++) {
    if (chunks[i] === null) continue;
    const bad = checkShape(chunks[i], { fileId: int, mimeType: str, bytes: int }, `payload.audio.chunks[${i}]`);
    if (bad !== null) return bad;
  }
  if (!(a.failed as unknown[]).every((i) => int(i) && (i as number) >= 0 && (i as number) < count)) return 'payload.audio.failed must list chunk indexes';
  return null;
}

export const mediaEvents = {
  /** A pending image message got its images (their Blobs were written to `files` first). */
  'image.generated': defineEvent({
    version: 1,
    payload: shape<ImageGeneratedV1>({ ...replyBase, images: imageRefs, splitImages: bool, taskId: nullable(str), cost: num, paymentSource: nullable(paymentSource), isNSFW: bool }),
    touches: (p) => pageAndList(p.conversationSlug),
  }),
  'image.answered': defineEvent({
    version: 1,
    payload: shape<ImageAnsweredV1>({ ...replyBase, text: str, recommendedModel: nullable(str), recommendedModelName: nullable(str), isNSFW: bool, requiresExplicitMode: bool }),
    touches: (p) => pageAndList(p.conversationSlug),
  }),
  // Favourites and model settings are no conversation's data: the gallery and settings queries follow them.
  'image.favourited': defineEvent({
    version: 1,
    payload: shape<ImageFavouritedV1>({ fileId: int, favourite: bool, at: num }),
    touches: () => NOTHING,
  }),
  /** The message's `videoStatus` is pending and the status is polled. */
  'video.requested': defineEvent({
    version: 1,
    payload: shape<VideoRequestedV1>({ ...replyBase, runId: str, model: str }),
    touches: (p) => page(p.conversationSlug),
  }),
  /** `completed` carries the video kept in `files`, `error` its note. */
  'video.statusChanged': defineEvent({
    version: 1,
    payload: shape<VideoStatusChangedV1>({
      ...replyBase, status: oneOf('processing', 'completed', 'error', 'cancelled'), videoUrl: nullable(str), videoFileId: nullable(int),
      error: nullable(str), cost: num, paymentSource: nullable(paymentSource),
    }),
    touches: (p) => pageAndList(p.conversationSlug),
  }),
  'modelSettings.changed': defineEvent({
    version: 1,
    payload: shape<ModelSettingsChangedV1>({ modelId: str, settings: (v) => isObj(v) && Object.values(v).every(settingValue), at: num }),
    touches: () => NOTHING,
  }),
  'message.webSearched': defineEvent({
    version: 1,
    payload: checked<MessageWebSearchedV1>(checkWebSearched),
    touches: (p) => page(p.conversationSlug),
  }),
  'speech.generated': defineEvent({
    version: 1,
    payload: checked<SpeechGeneratedV1>(checkSpeechGenerated),
    touches: (p) => page(p.conversationSlug),
  }),
};
