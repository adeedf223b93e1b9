/**
 * Wire shapes of the attachment calls (spec 000 section 7): POST /api/image-description, POST
 * /api/process-document (multipart) and POST /notion/unsupported-filetypes. zod schemas for the gateway's edge;
 * the engine imports the types.
 */
import { z } from 'zod';
import { IMAGE_SIZE_LIMIT } from './attachments';
import { IMAGE_DESCRIPTION_DEFAULTS } from './vision';

/** A data URL of an accepted image, base64. */
export const IMAGE_DATA_URL = /^data:image\/(png|jpeg|jpg|webp|gif|bmp);base64,/;
/**
 * Largest image POST /api/image-description takes: the description's own maximum (spec 000 section 9, 10 MB) or
 * the upload cap (spec 001 section 9, 3.5 MB), whichever is smaller: every image the engine stores was compressed
 * to the upload cap, so that is the binding one (docs/decisions.md, "Image description size").
 */
export const DESCRIPTION_MAX_IMAGE_BYTES = Math.min(IMAGE_DESCRIPTION_DEFAULTS.maxImageSizeMb * 1024 * 1024, IMAGE_SIZE_LIMIT);
/** Longest data URL accepted: the image limit as base64 plus the header. */
export const IMAGE_DATA_URL_MAX_CHARS = Math.ceil(DESCRIPTION_MAX_IMAGE_BYTES / 3) * 4 + 64;

export const ImageDescriptionRequestSchema = z.object({
  model: z.string().min(1).max(200).optional(),
  prompt: z.string().max(4000).optional(),
  /** The image as a data URL (spec 000 section 7). */
  image: z.string().max(IMAGE_DATA_URL_MAX_CHARS + 1024),
  session: z.string().max(200).optional(),
  transactionDetails: z.object({ conversationUUID: z.string().max(100).optional(), method: z.string().max(100).optional() }).optional(),
  /** Spec 000 section 9: 'detailed' by default; sent upstream as image_url.detail ('detailed' is 'high'). */
  detail: z.enum(['detailed', 'low', 'high', 'auto']).optional(),
});
export type ImageDescriptionRequest = z.infer<typeof ImageDescriptionRequestSchema>;

/** The upstream image_url.detail of a description request's detail (OpenAI's values: low, high, auto). */
export function upstreamDetail(detail: ImageDescriptionRequest['detail']): 'low' | 'high' | 'auto' {
  return detail === undefined || detail === 'detailed' ? 'high' : detail;
}
export interface ImageDescriptionResponse {
  description: string;
  /** The model that described it ('parley-offline' for the offline engine). */
  model: string;
}

/** POST /api/process-document answer (spec 000 section 7). `processing_time` is in seconds. */
export interface ProcessDocumentResponse {
  content: string;
  processing_time: number;
  processed_locally: boolean;
}

export const UnsupportedFiletypeSchema = z.object({
  filetype: z.string().trim().min(1).max(32),
  filesizemb: z.number().min(0).max(1_000_000),
});
export type UnsupportedFiletypeReport = z.infer<typeof UnsupportedFiletypeSchema>;
