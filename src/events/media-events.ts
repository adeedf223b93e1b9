/**
 * Events of media (images, video, model settings), web search and speech.
 * Listed in the shared catalogue (./catalogue.ts), which re-exports them. Pure: no DOM, no clock.
 */
import type { ImageRef, MessageAudio, ModelSettings, WebSearchRecord } from './model';
import type { PaymentSource } from '../protocol/stream';

// ---- media (src/worker/commands/media.ts, src/worker/services/video-poller.ts) ----

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
 * Speech of a message was made, chunk by chunk (src/worker/services/speech/): the whole take so far, appended after
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
