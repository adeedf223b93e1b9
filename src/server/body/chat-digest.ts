/**
 * What the reply routes take from their JSON body: the validated request (zod, at the edge) without its messages,
 * the hash that binds its requestId (body/request-binding.ts), and each conversation as a ChatPayload
 * (./chat-payload.ts). Pure, so that it runs on the event loop for a small body and in the body worker for a large
 * one (./parse-pool.ts) with the same result.
 */
import { createHash } from 'node:crypto';
import { StreamGptRequestSchema, type ChatMessage, type StreamGptRequest } from '../../protocol/api';
import { TalkToGptMultiRequestSchema, type TalkToGptMultiRequest } from '../../protocol/multi';
import { chatPayload, type ChatPayload } from './chat-payload';

export type BodyKind = 'stream-gpt' | 'multi';
export type StreamGptFields = Omit<StreamGptRequest, 'messages'>;
export type MultiFields = Omit<TalkToGptMultiRequest, 'modelPayloads' | 'prompt' | 'instructions'>;

export type BodyDigest =
  | { ok: true; kind: 'stream-gpt'; req: StreamGptFields; hash: string; conversation: ChatPayload }
  /** One conversation per model, in the order of `req.models`. */
  | { ok: true; kind: 'multi'; req: MultiFields; hash: string; conversations: ChatPayload[] }
  /** A 400 BAD_REQUEST with this message. */
  | { ok: false; message: string };

/** One readable line from a zod error: the first few issues with their paths. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** JSON with object keys sorted at every level: the same request always gives the same text. */
function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/**
 * SHA-256 (hex) of a validated request without its requestId: the request's other fields as canonical JSON, then
 * each conversation's JSON as the upstream gets it. zod builds its output with the schema's key order, so that JSON
 * is canonical already, and the conversation (the bulk of a request) is serialised once, not twice.
 */
export function requestBodyHash<T extends { requestId?: string | undefined }>(fields: T, conversations: readonly string[] = []): string {
  const { requestId: _omit, ...rest } = fields;
  const h = createHash('sha256').update(canonicalJson(rest));
  for (const c of conversations) h.update('\n').update(c);
  return h.digest('hex');
}

/** The messages a model of a multi-model request gets: its payload's, else the instructions and the prompt. */
export function multiMessages(req: TalkToGptMultiRequest, index: number): ChatMessage[] {
  const payload = req.modelPayloads?.find((p) => p.modelIndex === index);
  if (payload) return payload.messages;
  const out: ChatMessage[] = [];
  if (req.instructions && req.instructions.trim() !== '') out.push({ role: 'system', content: req.instructions });
  out.push({ role: 'user', content: req.prompt ?? '' });
  return out;
}

/** Validates a parsed body; `bytes` builds the conversations' JSON as UTF-8 bytes (in the worker). */
export function digestValue(kind: BodyKind, value: unknown, bytes: boolean): BodyDigest {
  if (kind === 'stream-gpt') {
    const parsed = StreamGptRequestSchema.safeParse(value);
    if (!parsed.success) return { ok: false, message: `Invalid request: ${describeIssues(parsed.error.issues)}` };
    const { messages, ...req } = parsed.data;
    const json = JSON.stringify(messages);
    return { ok: true, kind, req, hash: requestBodyHash(req, [json]), conversation: chatPayload(messages, bytes, json) };
  }
  const parsed = TalkToGptMultiRequestSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `Invalid request: ${describeIssues(parsed.error.issues)}` };
  const full = parsed.data;
  const { modelPayloads: _p, prompt: _q, instructions: _i, ...req } = full;
  // Each model's messages, as it gets them: two bodies that ask every model the same are the same request.
  const perModel = full.models.map((_, i) => multiMessages(full, i));
  const jsons = perModel.map((m) => JSON.stringify(m));
  const conversations = perModel.map((m, i) => chatPayload(m, bytes, jsons[i]));
  return { ok: true, kind, req, hash: requestBodyHash(req, jsons), conversations };
}

/** Parses and validates a body's text. */
export function digestText(kind: BodyKind, text: string, bytes: boolean): BodyDigest {
  if (text.trim().length === 0) return { ok: false, message: 'The request body is empty; expected JSON' };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    return { ok: false, message: `The request body is not valid JSON: ${e instanceof Error ? e.message : 'parse error'}` };
  }
  return digestValue(kind, value, bytes);
}
