/**
 * The attachment routes (issue 7): documents, image descriptions and unsupported-filetype reports. Files are read
 * in the gateway's parse pool (ctx.parse, src/server/parse/pool.ts), their bytes held within ctx.uploads.
 */
import type { Hono } from 'hono';
import type { RouteContext } from '../context';
import type { AppEnv } from '../http';
import { registerImageDescriptionRoute } from './image-description';
import { registerProcessDocumentRoute } from './process-document';
import { registerUnsupportedFiletypesRoute } from './unsupported-filetypes';

/** Routes that take a multipart upload instead of JSON (the cross-site guard lets these through). */
export const MULTIPART_ROUTES: ReadonlySet<string> = new Set(['/api/process-document']);
/** Routes whose bodies are larger than the small-JSON cap (each enforces its own limit while reading). */
export const ATTACHMENT_BODY_ROUTES = ['/api/process-document', '/api/image-description'] as const;
/** Routes that spend upstream capacity or CPU (the costly rate limit). */
export const ATTACHMENT_COSTLY_ROUTES = ['/api/process-document', '/api/image-description'] as const;

export function registerAttachmentRoutes(app: Hono<AppEnv>, ctx: RouteContext): void {
  registerProcessDocumentRoute(app, ctx);
  registerImageDescriptionRoute(app, ctx);
  registerUnsupportedFiletypesRoute(app, ctx);
}
