/**
 * POST /api/process-document (spec 000 section 7): a multipart form with one file; answers its text as
 * `{content, processing_time, processed_locally}`. The file is read in the parse pool (src/server/parse/pool.ts),
 * so no request holds the event loop, and a hostile file is contained by its thread's memory and time budgets;
 * the session's files take their turn fairly beside other sessions' items.
 *
 * Size: a declared Content-Length over the limit is refused before a byte is read; otherwise the body is streamed
 * through busboy and refused as soon as the file passes the limit (413), so a 200 MB upload is never held whole.
 * Memory: the upload's bytes are held within the upload budget (guards/upload-budget.ts) from its first byte until
 * it is read: 429 past the session's share, 503 past the overall cap, before a byte is read when the length is
 * declared, else as soon as the bytes that came pass it.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context, Hono } from 'hono';
import { baseName, fileExtension, formatFileSize, SERVER_MAX_FILE_SIZE, UPLOAD } from '../../protocol/attachments';
import type { ProcessDocumentResponse } from '../../protocol/attachments-api';
import { type RouteContext } from '../context';
import { jsonError, type AppEnv } from '../http';
import { serverReads } from '../parse/readers/server-formats';
import { uploadRefused, UPLOAD_RETRY_AFTER_S, type UploadRefusal } from '../guards/upload-budget';
import { ParseError } from '../parse/pool';

/** Multipart overhead allowed beyond the file itself (boundaries, headers, the file name). */
const FORM_OVERHEAD = 64 * 1024;

type Upload =
  | { ok: true; name: string; bytes: Uint8Array; fields: Record<string, string> }
  | { ok: false; status: 400 | 413; code: string; message: string }
  | { ok: false; refused: UploadRefusal };

/** A job id the engine chose (its library item's), so that an engine taking over can ask for the result. */
const JOB_ID = /^[A-Za-z0-9_-]{8,64}$/;
/** How long a job's result is kept for a status call. */
const JOB_RETAIN = "interval '1 hour'";

/**
 * Reads the form's one file, stopping past `limit` bytes (busboy's limit fires on reaching its size: limit + 1).
 * `admit`, when given, is asked about every chunk of the body as it arrives: a cap it names stops the reading.
 * Stopping keeps nothing more: the rest of the body is let through unread (not destroyed, so that the answer still
 * reaches the client; the server then drops the connection).
 */
export function readUpload(body: ReadableStream<Uint8Array> | Readable, contentType: string, limit: number, admit?: (bytes: number) => UploadRefusal | null): Promise<Upload> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (u: Upload): void => {
      if (settled) return;
      settled = true;
      resolve(u);
    };
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: { 'content-type': contentType }, limits: { files: 1, fileSize: limit + 1, fields: 10, parts: 12, fieldSize: 1024 } });
    } catch (e) {
      finish({ ok: false, status: 400, code: 'BAD_REQUEST', message: `Expected a multipart form with a file: ${e instanceof Error ? e.message : 'bad form'}` });
      return;
    }
    const source = body instanceof Readable ? body : Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>);
    let file: { name: string; chunks: Uint8Array[]; size: number } | null = null;
    const fields: Record<string, string> = {};
    const onData = (chunk: Uint8Array): void => {
      const refused = admit?.(chunk.byteLength);
      if (refused) stop({ ok: false, refused });
    };
    const stop = (answer: Upload): void => {
      source.off('data', onData);
      source.unpipe(bb);
      if (file) file.chunks = [];
      source.resume();
      finish(answer);
    };
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (_field, stream, info) => {
      const current = { name: baseName(info.filename ?? 'file'), chunks: [] as Uint8Array[], size: 0 };
      file = current;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        current.chunks.push(chunk);
        current.size += chunk.length;
      });
      stream.on('limit', () => stop({ ok: false, status: 413, code: 'FILE_TOO_LARGE', message: UPLOAD.sizeUnsupported(`over ${formatFileSize(limit)}`) }));
    });
    bb.on('error', (e: unknown) => finish({ ok: false, status: 400, code: 'BAD_REQUEST', message: `The form could not be read: ${e instanceof Error ? e.message : 'bad form'}` }));
    bb.on('close', () => {
      const f = file as { name: string; chunks: Uint8Array[]; size: number } | null;
      if (!f) return finish({ ok: false, status: 400, code: 'BAD_REQUEST', message: 'The form has no file' });
      // One ArrayBuffer of exactly the file (not a pooled Buffer): it is transferred to the reader thread as is.
      const bytes = new Uint8Array(f.size);
      let at = 0;
      for (const chunk of f.chunks) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      finish({ ok: true, name: f.name, bytes, fields });
    });
    source.on('error', () => finish({ ok: false, status: 400, code: 'BAD_REQUEST', message: 'The upload was interrupted' }));
    if (admit) source.on('data', onData);
    source.pipe(bb);
  });
}

/** Reads an uploaded document in the parse pool and answers its text (recorded under its job id, if any). */
async function readDocument(c: Context<AppEnv>, ctx: RouteContext, sessionId: string, upload: Extract<Upload, { ok: true }>): Promise<Response> {
  const ext = fileExtension(upload.name);
  if (!serverReads(ext)) return jsonError(c, 415, 'UNSUPPORTED_FILE', UPLOAD.unsupportedFile([ext === '' ? 'unknown file format (no extension)' : `unknown file format (.${ext})`]));
  if (upload.bytes.length === 0) return jsonError(c, 400, 'EMPTY_FILE', UPLOAD.unsupportedFile(['the file is empty']));
  const jobId = upload.fields.jobId !== undefined && JOB_ID.test(upload.fields.jobId) ? upload.fields.jobId : null;
  if (jobId !== null) {
    await ctx.db.query(`DELETE FROM document_jobs WHERE created_at < now() - ${JOB_RETAIN}`);
    const claimed = await ctx.db.query(
      `INSERT INTO document_jobs (session_id, job_id, status) VALUES ($1, $2, 'processing') ON CONFLICT (session_id, job_id) DO NOTHING RETURNING job_id`,
      [sessionId, jobId],
    );
    // The same job again (an engine that took over sent it anew): never read twice; answer from the first.
    if (claimed.length === 0) return answerJob(c, ctx, sessionId, jobId);
  }
  const record = async (status: 'completed' | 'error', fields: { content?: string; error?: string; code?: string; time?: number }): Promise<void> => {
    if (jobId === null) return;
    await ctx.db.query(`UPDATE document_jobs SET status = $3, content = $4, error = $5, error_code = $6, processing_time = $7 WHERE session_id = $1 AND job_id = $2`, [
      sessionId, jobId, status, fields.content ?? null, fields.error ?? null, fields.code ?? null, fields.time ?? null,
    ]);
  };
  const started = performance.now();
  // Read now: the bytes move to the reading thread (their buffer is transferred and reads 0 bytes here after).
  const size = upload.bytes.length;
  let content: string;
  try {
    content = await ctx.parse.extractDocument(sessionId, upload.bytes, ext);
  } catch (e) {
    if (e instanceof ParseError && e.code === 'BUSY') {
      // Not read at all: the job is forgotten, so that the same job sent again later is read.
      if (jobId !== null) await ctx.db.query('DELETE FROM document_jobs WHERE session_id = $1 AND job_id = $2', [sessionId, jobId]);
      c.header('Retry-After', String(UPLOAD_RETRY_AFTER_S));
      return jsonError(c, 429, 'TOO_MANY_UPLOADS', e.message);
    }
    const reason = e instanceof Error ? e.message : String(e);
    ctx.log(`process-document: ${upload.name} (${size} bytes): ${reason}`);
    await record('error', { error: reason, code: 'PROCESSING_FAILED' });
    return jsonError(c, 422, 'PROCESSING_FAILED', reason);
  }
  if (content.trim() === '') {
    await record('error', { error: UPLOAD.noText, code: 'NO_TEXT' });
    return jsonError(c, 422, 'NO_TEXT', UPLOAD.noText);
  }
  const time = Math.round(performance.now() - started) / 1000;
  await record('completed', { content, time });
  const answer: ProcessDocumentResponse = { content, processing_time: time, processed_locally: false };
  c.header('Cache-Control', 'no-store');
  return c.json(answer);
}

/** A job's state: 200 with the answer when completed, 202 while processing, its error when it failed, 404 unknown. */
async function answerJob(c: Context<AppEnv>, ctx: RouteContext, sessionId: string, jobId: string): Promise<Response> {
  const [row] = await ctx.db.query<{ status: string; content: string | null; error: string | null; error_code: string | null; processing_time: number | null }>(
    `SELECT status, content, error, error_code, processing_time FROM document_jobs WHERE session_id = $1 AND job_id = $2 AND created_at > now() - ${JOB_RETAIN}`,
    [sessionId, jobId],
  );
  c.header('Cache-Control', 'no-store');
  if (!row) return jsonError(c, 404, 'JOB_NOT_FOUND', 'No such document job');
  if (row.status === 'processing') return c.json({ status: 'processing' }, 202);
  if (row.status === 'error') return jsonError(c, 422, row.error_code ?? 'PROCESSING_FAILED', row.error ?? 'Processing failed');
  const answer: ProcessDocumentResponse = { content: row.content ?? '', processing_time: Number(row.processing_time ?? 0), processed_locally: false };
  return c.json(answer);
}

export function registerProcessDocumentRoute(app: Hono<AppEnv>, ctx: RouteContext, limit: number = SERVER_MAX_FILE_SIZE): void {
  app.post('/api/process-document', async (c) => {
    const contentType = c.req.header('content-type') ?? '';
    if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
      return jsonError(c, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data');
    }
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limit + FORM_OVERHEAD) {
      return jsonError(c, 413, 'FILE_TOO_LARGE', UPLOAD.sizeUnsupported(formatFileSize(declared)));
    }
    // Under the Node server the request itself is read (see readUpload: a refused body is let through unread);
    // under app.request (tests) its web stream.
    const incoming = c.env?.incoming;
    const body = incoming && typeof incoming.pipe === 'function' ? incoming : c.req.raw.body;
    if (!body) return jsonError(c, 400, 'BAD_REQUEST', 'The form has no file');
    const sessionId = c.get('sessionId');
    // The bytes are held from here until the file is read: all of a declared length at once, else as they come.
    const lengthKnown = Number.isInteger(declared) && declared >= 0;
    const hold = ctx.uploads.hold(sessionId, lengthKnown ? declared : 0);
    if (typeof hold === 'string') return uploadRefused(c, hold);
    ctx.parse.warm(); // the reading threads load while the file arrives
    try {
      const upload = await readUpload(body, contentType, limit, lengthKnown ? undefined : hold.grow);
      if (!upload.ok) return 'refused' in upload ? uploadRefused(c, upload.refused) : jsonError(c, upload.status, upload.code, upload.message);
      return await readDocument(c, ctx, sessionId, upload);
    } finally {
      hold.release();
    }
  });
  app.get('/api/process-document/status', async (c) => {
    const jobId = c.req.query('jobId') ?? '';
    if (!JOB_ID.test(jobId)) return jsonError(c, 400, 'BAD_REQUEST', 'jobId must be 8 to 64 letters, digits, - or _');
    return answerJob(c, ctx, c.get('sessionId'), jobId);
  });
  app.all('/api/process-document', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
