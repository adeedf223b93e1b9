/**
 * Reads a reply route's JSON body (POST /api/stream-gpt, /api/talk-to-gpt-multi) within PARLEY_MAX_BODY_BYTES and
 * digests it (./chat-digest.ts): on the event loop when it is small, in the body worker when it is large
 * (./parse-pool.ts). A declared Content-Length over the limit is refused before a byte is read; a body sent without
 * one is counted as it arrives and refused once past the limit. Answers 413 PAYLOAD_TOO_LARGE or 400 BAD_REQUEST.
 */
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Context } from 'hono';
import { jsonError, type AppEnv } from '../http';
import { digestText, type BodyDigest, type BodyKind } from './chat-digest';
import { INLINE_BODY_BYTES, type BodyParsePool } from './parse-pool';

type Digested<K extends BodyKind> = Extract<BodyDigest, { ok: true; kind: K }>;

/** Size of the shared-memory segments a large body is collected in. */
const SEGMENT_BYTES = 1024 * 1024;

/**
 * The body's bytes in shared memory (so the worker reads them without a copy), or null past `maxBytes`. Each
 * network chunk is copied once, as it arrives: never one large copy on the event loop.
 */
async function collect(c: Context<AppEnv>, maxBytes: number): Promise<Uint8Array[] | null> {
  const segments: Uint8Array[] = [];
  let current: Uint8Array | null = null;
  let used = 0;
  let total = 0;
  const append = (chunk: Uint8Array): boolean => {
    total += chunk.byteLength;
    if (total > maxBytes) return false;
    let at = 0;
    while (at < chunk.byteLength) {
      if (current === null || used === current.byteLength) {
        // Segment by segment, whatever Content-Length says: memory follows the bytes that really arrived.
        current = new Uint8Array(new SharedArrayBuffer(SEGMENT_BYTES));
        segments.push(current);
        used = 0;
      }
      const n = Math.min(chunk.byteLength - at, current.byteLength - used);
      current.set(chunk.subarray(at, at + n), used);
      used += n;
      at += n;
    }
    return true;
  };
  const incoming: IncomingMessage | undefined = c.env?.incoming;
  if (incoming && typeof incoming.on === 'function') {
    const fits = await new Promise<boolean>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        if (!append(chunk)) {
          incoming.off('data', onData);
          incoming.resume(); // drop the rest; the answer is 413
          resolve(false);
        }
      };
      incoming.on('data', onData);
      incoming.once('end', () => resolve(true));
      incoming.once('error', reject);
      incoming.once('close', () => {
        if (!incoming.complete) reject(new Error('The request body was cut off'));
      });
    });
    if (!fits) return null;
  } else {
    const body = c.req.raw.body;
    if (body) {
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!append(value)) {
          await reader.cancel().catch(() => {});
          return null;
        }
      }
    }
  }
  if (current !== null) segments[segments.length - 1] = (current as Uint8Array).subarray(0, used);
  return segments;
}

function decode(chunks: readonly Uint8Array[]): string {
  const decoder = new StringDecoder('utf8');
  let text = '';
  for (const c of chunks) text += decoder.write(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  return text + decoder.end();
}

/** The body digested, or the 4xx answer. Throws only when the body worker fails (a 500). */
export async function readChatBody<K extends BodyKind>(
  c: Context<AppEnv>,
  kind: K,
  maxBytes: number,
  pool: BodyParsePool,
): Promise<{ ok: true; digest: Digested<K> } | { ok: false; response: Response }> {
  const tooLarge = (): { ok: false; response: Response } => ({
    ok: false,
    response: jsonError(c, 413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes`),
  });
  const header = c.req.header('content-length');
  const declared = header === undefined ? null : Number(header);
  if (declared !== null && (!Number.isInteger(declared) || declared < 0 || declared > maxBytes)) return tooLarge();
  let digest: BodyDigest;
  try {
    if (declared !== null && declared <= INLINE_BODY_BYTES) {
      // Small: read on @hono/node-server's fast path and parsed here (about a millisecond at most).
      digest = digestText(kind, await c.req.text(), false);
    } else {
      const chunks = await collect(c, maxBytes);
      if (chunks === null) return tooLarge();
      const size = chunks.reduce((n, ch) => n + ch.byteLength, 0);
      digest = size <= INLINE_BODY_BYTES ? digestText(kind, decode(chunks), false) : await pool.digest(kind, chunks);
    }
  } catch (e) {
    if (e instanceof Error && /body worker|closing/.test(e.message)) throw e;
    return { ok: false, response: jsonError(c, 400, 'BAD_REQUEST', 'Could not read the request body') };
  }
  if (!digest.ok) return { ok: false, response: jsonError(c, 400, 'BAD_REQUEST', digest.message) };
  if (digest.kind !== kind) throw new Error(`body digest of kind ${digest.kind}, expected ${kind}`);
  return { ok: true, digest: digest as Digested<K> };
}
