/**
 * The engine's media and speech: the gallery, image and video requests, model settings, Read aloud and transcription.
 * Joined into the engine API by ./engine.ts, which re-exports them.
 */
import type { MessageAudio, ModelSettings, SpeechChoiceRecord } from '../events/model';
import type { TranscribeConfig } from './speech';
import type { ActionResult, SendMessageResult } from './engine';

/** One image of the gallery (every generated image across conversations, newest first, at most 1000). */
export interface GalleryItem {
  fileId: number;
  thumbId: number;
  mimeType: string;
  width: number;
  height: number;
  messageId: number;
  slug: string;
  conversationName: string;
  /** The prompt that made it. */
  prompt: string;
  model: string;
  timestamp: number;
  favourite: boolean;
}
/** Media (src/worker/rooms/media/queries.ts). */
export interface MediaQueries {
  gallery: { query: { kind: 'gallery' }; result: GalleryItem[] };
  /** Per-model settings by model id (spec 000 section 3). */
  modelSettings: { query: { kind: 'modelSettings' }; result: Record<string, ModelSettings> };
}

/** An image or video request of the submit flow (spec 000 section 4, step 7's image and video handlers). */
export interface MediaSubmitInput {
  /** Existing conversation slug, or null to create a new conversation. */
  slug: string | null;
  prompt: string;
  model: string;
  /** Settings of this request; default: the model's kept settings. */
  settings?: ModelSettings;
  /** Files (`files` ids) used as input images: image-to-image, or image-to-video (the first). */
  inputImageIds?: number[];
}

/** Media (src/worker/rooms/media/commands.ts). */
export interface MediaHandlers {
  generateImage(input: MediaSubmitInput): Promise<SendMessageResult>;
  generateVideo(input: MediaSubmitInput): Promise<SendMessageResult>;
  /** Keeps a model's settings (merged into what it had); engine data, so they survive a reload. */
  setModelSettings(modelId: string, settings: ModelSettings): Promise<ActionResult>;
  setImageFavourite(fileId: number, favourite: boolean): Promise<ActionResult>;
  /** An image, thumbnail or video file as a Blob (shown with an object URL), or null when it is gone. */
  getFile(fileId: number): Promise<Blob | null>;
  /** Stores an image the user chose (an input for image-to-image); refused when it is not PNG, JPEG, WebP or GIF. */
  storeInputImage(image: Blob): Promise<{ ok: true; fileId: number } | { ok: false; error: string }>;
}


/** A voice, speed and the model's extra settings for speech (src/protocol/speech-catalogue.ts); an Audio mode reply keeps it. */
export type SpeechChoice = SpeechChoiceRecord;

/** A message's speech as the player follows it: the chunks made so far, and whether more are coming. */
export interface SpeechState {
  audio: MessageAudio | null;
  generating: boolean;
  /** Why the last attempt made nothing (or skipped), or null. */
  error: string | null;
}

export interface SpeechQueries {
  speech: { query: { kind: 'speech'; messageId: number }; result: SpeechState };
}

export type ReadAloudResult =
  | { ok: true; audio: MessageAudio }
  /** skipped: 'balance' when a paid model cannot be paid for (spec 001 section 4: generation is skipped). */
  | { ok: false; error: string; skipped?: 'balance' };

/** Speech (src/worker/rooms/speech/commands.ts). */
export interface SpeechHandlers {
  /**
   * Makes (or finds cached) the speech of a message, chunk by chunk: the `speech` query shows each chunk as it is
   * made. Model: the given one, else the preferred TTS model if the gateway offers it, else the offline voice.
   */
  readAloud(messageId: number, choice?: SpeechChoice & { model?: string }): Promise<ReadAloudResult>;
  /** A chunk's audio (a Blob from `files`), or null when it is gone. */
  getAudioFile(fileId: number): Promise<Blob | null>;
  /** Voice mode: a recording to text through the gateway's transcription provider. */
  transcribe(audio: Blob, language?: string): Promise<{ ok: true; text: string } | { ok: false; error: string }>;
  transcriptionConfig(): Promise<TranscribeConfig>;
}
