/**
 * What the body worker does with one job (./parse-pool.ts): decode the bytes, parse, validate and digest them
 * (./chat-digest.ts), and hand back the digest with each conversation's JSON as bytes, transferred (not copied).
 */
import { StringDecoder } from 'node:string_decoder';
import { digestText, type BodyDigest, type BodyKind } from './chat-digest';

export interface ParseJob {
  id: number;
  kind: BodyKind;
  /** The body, in order (views on SharedArrayBuffers: shared with the event loop's thread, not copied). */
  chunks: Uint8Array[];
}

export interface ParseReply {
  id: number;
  digest: BodyDigest;
}

export function handleJob(job: ParseJob): { reply: ParseReply; transfer: ArrayBuffer[] } {
  let digest: BodyDigest;
  try {
    const decoder = new StringDecoder('utf8');
    let text = '';
    for (const c of job.chunks) text += decoder.write(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
    text += decoder.end();
    digest = digestText(job.kind, text, true);
  } catch (e) {
    digest = { ok: false, message: `The request body could not be read: ${e instanceof Error ? e.message : String(e)}` };
  }
  const transfer: ArrayBuffer[] = [];
  const take = (json: string | Uint8Array): void => {
    if (typeof json !== 'string') transfer.push(json.buffer as ArrayBuffer);
  };
  if (digest.ok && digest.kind === 'stream-gpt') take(digest.conversation.json);
  else if (digest.ok) for (const c of digest.conversations) take(c.json);
  return { reply: { id: job.id, digest }, transfer };
}
