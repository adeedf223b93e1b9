/**
 * Wire shapes of the attachment calls (spec 000 section 7): POST /api/image-description, POST
 * /api/process-document (multipart) and POST /notion/unsupported-filetypes. zod schemas for the gateway's edge;
 * the engine imports the types.
 */
import { z } from 'zod';
import { IMAGE_SIZE_LIMIT } from './attachments';

/** A data URL of an accepted image, base64. */
export const IMAGE_DATA_URL = /^data:image\/(png|jpeg|jpg|webp|gif|bmp);base64,/;
/** Longest data URL accepted: the image limit as base64 plus the header. */
export const IMAGE_DATA_URL_MAX_CHARS = Math.ceil(IMAGE_SIZE_LIMIT / 3) * 4 + 64;

export const ImageDescriptionRequestSchema = z.object({
  model: z.string().min(1).max(200).optional(),
  prompt: z.string().max(4000).optional(),
  /** The image as a data URL (spec 000 section 7). */
  image: z.string().max(IMAGE_DATA_URL_MAX_CHARS + 1024),
  session: z.string().max(200).optional(),
  transactionDetails: z.object({ conversationUUID: z.string().max(100).optional(), method: z.string().max(100).optional() }).optional(),
  /** Spec 000 section 9: 'detailed' by default. */
  detail: z.enum(['detailed', 'low', 'high', 'auto']).optional(),
});
export type ImageDescriptionRequest = z.infer<typeof ImageDescriptionRequestSchema>;
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
