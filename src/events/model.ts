/**
 * Read-model row shapes of the local database (spec 000 section 3, schema v42). Pure types.
 * Fields beyond the spec's indexed ones are stored on the row object (Dexie stores whole objects).
 */
import type { PaymentSource } from '../protocol/stream';
import type { ChatPart } from '../protocol/api';

export type Role = 'system' | 'user' | 'assistant' | 'tool';
export type Mode = 'chat' | 'image' | 'video' | 'audio' | 'voice';
/** UI lifecycle of a message: pending (waiting for first token), streaming, done, error. */
export type MessageStatus = 'pending' | 'streaming' | 'done' | 'error';

export interface ConversationRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  latestMessage: string;
  isMediaOnly: boolean;
  instructions?: string;
  /** How the name was last set: absent = the first words of the prompt; 'generated' titles are not regenerated. */
  nameSource?: 'user' | 'generated';
  /** When it was pinned (pinned conversations lead the list); absent = not pinned. */
  pinnedAt?: number;
  /** When it was deleted: hidden from every query, restorable until purged (docs/events.md). */
  deletedAt?: number;
}

export interface MessageRow {
  id: number;
  conversationSlug: string;
  /** Milliseconds. */
  timestamp: number;
  role: Role;
  prompt: string | ChatPart[];
  model: string;
  mode?: Mode;
  status: MessageStatus;
  /** Reasoning text shown collapsible. */
  thinking?: string;
  hasError?: boolean;
  error?: string;
  cost?: number;
  paymentSource?: PaymentSource;
  outputTokens?: number;
  /** Input tokens of the request that made this reply (from reply.completed; older replies lack it). */
  inputTokens?: number;
  isPartial?: boolean;
  /** The reply stopped because the engine running it went away (leader tab closed) and could not be resumed. */
  interrupted?: boolean;
  /** The user stopped the reply (reply.completed with stopped): its text is what arrived before. */
  stopped?: boolean;
  /** Gateway request id of the reply (set when it starts): the idempotency key of its charge, and how to resume it. */
  requestId?: string;
  /** The reply's text when Continue last extended it (reply.continued): a resumed continuation starts after it. */
  continuedFrom?: { text: string; thinking: string };
  modelContext?: string;
  /** Spec 000 section 3: the user chose Auto; the engine picked `autoModelSelectedModel` (also `model`) for this turn. */
  isAutoModel?: boolean;
  autoModelSelectedModel?: string;
  /** Spec 000 section 3: references to this message's generated speech, one per chunk made (from `audio`). */
  audioUrls?: string[];
  visible?: boolean;
  /** Spec 000 section 3: the thanks detector's verdict on a short user message. */
  sentiment?: 'thankful';
  /** How many older messages the request of this prompt left out to fit the model's context window. */
  contextOmitted?: number;
  /** Replies of one multi-model request share it (the request id): the view shows them side by side. */
  multiModelRequest?: string;
  // Media (spec 000 section 3; src/worker/rooms/media/commands.ts). Image bytes live in `files` as Blobs; rows refer to them.
  images?: ImageRef[];
  /** The images are the four quadrants of one Midjourney-style grid (splitImages). */
  splitImages?: boolean;
  midjourneyTaskId?: string;
  /** The settings the image or video was asked with. */
  imageSettings?: ModelSettings;
  recommendedImageModel?: string;
  recommendedImageModelFriendlyName?: string;
  isNSFW?: boolean;
  requiresExplicitMode?: boolean;
  videoGenerationId?: string;
  videoStatus?: 'pending' | 'processing' | 'completed' | 'error' | 'cancelled';
  /** The gateway's URL of the finished video. */
  videoUrl?: string;
  /** The finished video, kept in `files`. */
  videoFileId?: number;
  /** Spec 000 section 3: pages scraped for this (user) message, shown as chips; the model reads them with it. */
  scrapedContent?: ScrapedContent[];
  /** The web search run for this (user) message: its numbered sources, which its replies cite (message.webSearched). */
  webSearch?: WebSearchRecord;
  /** Files this (user) message carries (issue 7): chips in the view; their text goes to the model after the prompt. */
  files?: MessageFile[];
  /** Speech of this message (spec 000 section 3 audioUrls): its chunks' audio as Blobs in `files` (speech.generated). */
  audio?: MessageAudio;
  /** An Audio mode reply: the voice and settings it was asked with, so that a new engine can ask again (issue 9). */
  speechChoice?: SpeechChoiceRecord;
  // Branch fields (schema v41).
  parentMessageId: number | null;
  alternativeGroup: string | null;
  branchIndex: number;
  isActiveBranch: boolean;
  branchDepth: number;
  updatedAt: number;
}

/** An image of a message: its bytes (and a thumbnail's) are Blobs in the `files` table. */
export interface ImageRef {
  fileId: number;
  /** The thumbnail's file (the image itself when no thumbnail could be made). */
  thumbId: number;
  mimeType: string;
  width: number;
  height: number;
  bytes: number;
}

/** Per-model settings, kept per model id (spec 000 section 3). */
export interface ModelSettings {
  nImages?: number;
  resolution?: string;
  width?: number;
  height?: number;
  aspect_ratio?: string;
  duration?: number;
  seed?: number;
  guidance_scale?: number;
  negative_prompt?: string;
  /** Upscalers: 2, 3 or 4 (spec 001 section 9). */
  upscale_factor?: 2 | 3 | 4;
  voice?: string;
  // Text models' settings (the "Model settings" panel; src/protocol/sampling.ts has their ranges).
  temperature?: number;
  top_p?: number;
  top_k?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  repetition_penalty?: number;
  min_p?: number;
  top_a?: number;
  /** The reply's length limit for this model (else the maxTokens preference). */
  maxTokens?: number;
  reasoning_effort?: string;
  /** One stop sequence. */
  stop?: string;
}

/** Spec 000 section 3: a message queued while a reply generates. */
export interface QueuedMessage {
  id: string;
  prompt: string;
  /** Library ids of attached files. */
  attachments: string[];
  scrapedUrls: string[];
  scrapedContent: { url: string; title: string; content: string }[];
  timestamp: number;
}

export interface MessageLibraryRow { id: number; messageId: number; libraryId: number }
export interface FileRow { id: number; file: Blob | ArrayBuffer }
export interface LibraryRow {
  id: number; createdAt: number; lastModified: number; fileId: number; name: string; content: string[];
  processingTime: number; type: 'image' | 'file'; status: string; order: number;
  // The library item's working fields (spec 000 section 3) and this app's upload state (src/projections/library.ts).
  fileType?: string;
  sizeBytes?: number;
  analysis?: FileAnalysis;
  conversationId?: number | null;
  processedLocally?: boolean;
  /** MIME type of the stored file (an image after compression: image/jpeg or image/png). */
  mimeType?: string;
  /** Reading progress, 0 to 1, while uploading or processing; null when unknown. */
  progress?: number | null;
  /** Why it failed (status 'error'), the spec's message. */
  error?: string;
  /** Where it is read: in the browser ('client'), by the gateway ('server'), or an image ('image'). */
  processing?: 'client' | 'server' | 'image';
  /** The gateway job id of server processing (polled after a reload). */
  jobId?: string;
  /** Size before compression (an image that was compressed). */
  originalSize?: number;
  /** An image's thumbnail in `files` (made in the file worker once it is prepared); absent: the image is its own. */
  thumbId?: number;
  /** SHA-256 of the bytes as added (hex), computed in the engine worker: one library row per identical file. */
  contentHash?: string;
}

/** The file analyser's verdict (spec 000 section 5; src/worker/rooms/library/attachments/analyser.ts). */
export interface FileAnalysis {
  extension: string;
  isSupported: boolean;
  needsServerProcessing: boolean;
  recommendedProcessing: 'client' | 'server';
  estimatedProcessingTime: number;
  reasons: string[];
}

/**
 * A file a user message carries (src/shared/attach-step.ts). An image sent inline to a vision model
 * is an image_url part of the prompt and has no text here; one described for another model has its description.
 */
export interface MessageFile {
  libraryId: number;
  name: string;
  type: 'image' | 'file';
  sizeBytes: number;
  /** An image's thumbnail file (its library row's), shown with the sent message while the library keeps it. */
  thumbId?: number;
  /** A document's text as sent (cut to the model's context), or an image's description. */
  text?: string;
  /** Shown with the message: how much of a document fit the model's context. */
  note?: string;
}
export interface LibraryConversationRow { id: number; libraryId: number; conversationId: number }
export interface InstructionRow { id: number; name: string; instructions: string; createdAt: number; updatedAt: number }
export interface ScratchpadEntryRow { id: number; content: string; type: string; timestamp: number; conversationSlug: string }
export interface FolderRow { id: number; name: string; createdAt: number; updatedAt: number; parentId: number | null }
export interface ConversationFolderRow { id: number; conversationId: number; folderId: number }

/** Spec 000 section 3: timestamps with fewer than 13 digits are seconds; multiply by 1000. */
export function normalizeTimestamp(ts: number): number {
  if (!Number.isFinite(ts) || ts <= 0) return ts;
  // Fewer than 13 integer digits <=> below 10^12 (numeric test: no string allocated on the replay hot path).
  return ts < 1e12 ? ts * 1000 : ts;
}

/** A scraped page (spec 000 section 3: scrapedContent url, title, content). */
export interface ScrapedContent {
  url: string;
  title: string;
  content: string;
}

/** One numbered source of a web search: [1] is sources[0]. */
export interface WebSourceRecord {
  title: string;
  url: string;
  snippet: string;
}

/** A web search run for a user message (message.webSearched): what the model was given, and what it cost. */
export interface WebSearchRecord {
  depth: 'standard' | 'deep';
  provider: string;
  sources: WebSourceRecord[];
  cost: number;
  paymentSource: PaymentSource;
  at: number;
}

/** One chunk's audio, a Blob in the `files` table. */
export interface AudioChunkRef {
  fileId: number;
  mimeType: string;
  bytes: number;
}

/** The voice, speed and extra settings an Audio mode reply was asked with (the engine's SpeechChoice). */
export interface SpeechChoiceRecord {
  voice?: string;
  speed?: number;
  stability?: number;
  similarity_boost?: number;
  style?: number;
  instructions?: string;
}

/**
 * The speech of a message with one model, voice and speed (`key`): its text split into `chunkCount` chunks of at
 * most 3900 characters; `chunks[i]` is null until made, and stays null when it failed (listed in `failed`).
 */
/**
 * Spec 000 section 3 `audioUrls`: one reference per chunk of a message's speech that was made, in order. The audio is
 * a Blob in the local `files` table, so a reference names that file ('parley-file:<fileId>'), which the engine's
 * getAudioFile reads; a provider's URL would expire and a Blob URL dies with its tab.
 */
export const AUDIO_URL_SCHEME = 'parley-file:';
export function audioUrlsOf(audio: Pick<MessageAudio, 'chunks'>): string[] {
  const out: string[] = [];
  for (const c of audio.chunks) if (c) out.push(`${AUDIO_URL_SCHEME}${c.fileId}`);
  return out;
}
/** The file id an audio reference names, or null for anything else. */
export function fileIdOfAudioUrl(url: string): number | null {
  if (!url.startsWith(AUDIO_URL_SCHEME)) return null;
  const id = Number(url.slice(AUDIO_URL_SCHEME.length));
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

export interface MessageAudio {
  key: string;
  model: string;
  voice: string;
  speed: number;
  chunkCount: number;
  chunks: (AudioChunkRef | null)[];
  failed: number[];
  /** USD charged for the chunks made so far. */
  cost: number;
}
