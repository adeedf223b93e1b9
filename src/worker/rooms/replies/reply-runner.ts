/**
 * Runs one chat reply: POST /api/stream-gpt, parse the stream, publish live text, checkpoint now and then,
 * and end with exactly one terminal event (completed, failed). Tokens are not events (DESIGN rule 4).
 */
import type { Notice } from '../../../protocol/engine';
import type { NewEvent } from '../../../events/catalogue';
import { makeEvent } from '../../../events/catalogue';
import { ReplyStreamParser } from './stream-parser';
import type { ImageLineReply, LineImage } from './image-lines';
import { classifyModelError, failedChatText, streamFailureText } from '../../infra/errors';
import { GatewayError } from '../../infra/gateway';
import { FAILED_TO_START_STREAM, MODEL_ERROR, NO_MESSAGE_CONTENT_RETURNED, NO_MESSAGE_RETURNED, NO_MESSAGE_RETURNED_TEXT, STREAM_ERROR } from '../../../shared/messages';

/** How often a streaming reply's text is saved for crash recovery. */
export const CHECKPOINT_INTERVAL_MS = 2000;
/**
 * The engine gives up on a reply stream that sends nothing for this long. Above the gateway's own stall limit
 * (30 s), so normally the gateway ends a stalled reply first with its metadata; this guards against a gateway
 * that went silent itself.
 */
export const CLIENT_STALL_MS = 45_000;
export const CLIENT_STALL_ERROR = 'The reply stopped arriving: no data for too long.';
/** A reply whose connection broke after text arrived (ours; spec 000 section 8 keeps such a partial reply). */
export const STREAM_BROKE = STREAM_ERROR.streamBroke;

export interface LiveReply {
  messageId: number;
  userMessageId: number;
  slug: string;
  requestId: string;
  /** The reply's text and thinking so far; read it when publishing, not per chunk. */
  parser: ReplyStreamParser;
  controller: AbortController;
  stoppedByUser: boolean;
  /** One model of a multi-model request: a failure stays on this reply's message (reply.failed ownError). */
  ownError?: boolean;
  /** Its failure was already told with a better notice (a multi-model line with a status): no second notice. */
  quietFailure?: boolean;
  /**
   * Continue (reply.continued): what the reply held before this request. The new text is appended to it, cost and
   * output tokens add up, and a failure always keeps the reply (it is never deleted).
   */
  continuation?: { text: string; thinking: string; cost: number; outputTokens: number };
  /** Events appended together with a reply.failed that deletes the reply (e.g. repairing its alternative group). */
  onDropped?: () => NewEvent[];
  /** The model answers in the Gemini image model's JSON lines: its text and images, decoded (./image-lines.ts). */
  imageLines?: ImageLineReply;
}

/** The reply's text and thinking so far, after what it held before a Continue. */
export function replyText(reply: LiveReply): { text: string; thinking: string } {
  const c = reply.continuation;
  const text = reply.imageLines ? reply.imageLines.update(reply.parser.text) : reply.parser.text;
  if (c === undefined) return { text, thinking: reply.parser.thinking };
  return { text: c.text + text, thinking: c.thinking + reply.parser.thinking };
}

export interface ReplyHost {
  append(events: NewEvent[]): Promise<void>;
  publish(reply: LiveReply): void;
  notify(notice: Omit<Notice, 'id'>): void;
  newEventId(): string;
  now(): number;
  /** Inactivity limit of a reply stream; CLIENT_STALL_MS unless a test sets a shorter one. */
  stallMs?: number;
  /** The currency the user pays in (a 402 notice shows the required amount in it); default XNO. */
  currency?(): 'USD' | 'XNO';
  /** Stores a reply's images (image lines) as Blobs; returns the events that put them on its message. */
  storeImages?(reply: LiveReply, images: LineImage[], at: number): Promise<NewEvent[]>;
}

/**
 * Runs a reply to its terminal event. `open` starts the stream: a new request (gateway.streamReply) or, for a
 * reply another engine started, a resume (gateway.resumeReply), which replays the stream from its first byte.
 */
export async function runReply(host: ReplyHost, reply: LiveReply, open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>): Promise<void> {
  const parser = reply.parser;
  let transportError: unknown = null;
  let stalled = false;
  /** The gateway answered with a stream (a failure after this is not a failure to start). */
  let opened = false;
  let lastCheckpoint = host.now();
  // Re-armed on every chunk (clear + set: timer handles are plain numbers in browsers, with no refresh()).
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  const armStallTimer = () => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => {
      stalled = true;
      reply.controller.abort();
    }, host.stallMs ?? CLIENT_STALL_MS);
  };
  armStallTimer();
  try {
    const body = await open(reply.controller.signal);
    opened = true;
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      armStallTimer();
      parser.push(value);
      host.publish(reply);
      const now = host.now();
      if (now - lastCheckpoint >= CHECKPOINT_INTERVAL_MS) {
        lastCheckpoint = now;
        await host.append([
          makeEvent('reply.checkpointed', { messageId: reply.messageId, conversationSlug: reply.slug, ...replyText(reply), at: now }, host.newEventId(), now),
        ]);
      }
    }
    parser.finish();
  } catch (error) {
    transportError = stalled ? new Error(CLIENT_STALL_ERROR) : error;
    parser.finish();
  } finally {
    clearTimeout(stallTimer);
  }
  reply.imageLines?.finish(parser.text);
  const { text, thinking } = replyText(reply);
  const at = host.now();
  const meta = parser.metadata;
  const base = { messageId: reply.messageId, conversationSlug: reply.slug, at };
  const before = reply.continuation;
  // A continued reply is charged for its new part; the message keeps the sum.
  const cost = (meta?.cost ?? 0) + (before?.cost ?? 0);
  const outputTokens = meta?.outputTokens == null ? null : meta.outputTokens + (before?.outputTokens ?? 0);
  const inputTokens = meta?.inputTokens ?? null;
  /** The images of an image-lines reply, stored and put on its message with its completion. */
  const imageEvents = async (): Promise<NewEvent[]> => {
    const images = reply.imageLines?.images ?? [];
    return images.length > 0 && host.storeImages ? host.storeImages(reply, images, at) : [];
  };

  const fail = async (error: string, keepIt: boolean, notice: Omit<Notice, 'id'> | null) => {
    if (notice && !reply.quietFailure) host.notify(notice);
    // A continued reply is never deleted: it keeps what it had, and what arrived.
    const keepPartial = before !== undefined || keepIt;
    const repair = keepPartial ? [] : (reply.onDropped?.() ?? []);
    await host.append([
      makeEvent(
        'reply.failed',
        {
          ...base,
          userMessageId: reply.userMessageId,
          error,
          keepPartial,
          text,
          thinking,
          cost,
          paymentSource: meta?.paymentSource ?? null,
          ...(reply.ownError ? { ownError: true } : {}),
        },
        host.newEventId(),
        at,
      ),
      ...repair,
    ]);
  };

  if (reply.stoppedByUser) {
    // The user pressed Stop: keep what arrived, like every chat app does.
    await host.append([
      ...(await imageEvents()),
      makeEvent('reply.completed', { ...base, text, thinking, cost, paymentSource: meta?.paymentSource ?? null, outputTokens, inputTokens, stopped: true }, host.newEventId(), at),
    ]);
    return;
  }
  if (transportError instanceof GatewayError) {
    const body = transportError.body;
    const currency = host.currency?.();
    const notice = classifyModelError({ status: transportError.status, code: body?.error, message: body?.message, body, ...(currency ? { currency } : {}) });
    // Context memory still indexing (413): the notice offers Resend, which sends the prompt again.
    const resend = notice.title === MODEL_ERROR.contextMemoryTitle ? { ...notice, action: { label: MODEL_ERROR.resend, kind: 'resend' as const, slug: reply.slug, messageId: reply.userMessageId } } : notice;
    await fail(streamFailureText(body), false, resend);
    return;
  }
  if (transportError !== null && !opened) {
    // The request never got an answer (network down, gateway unreachable): 'Failed to start stream'.
    await fail(FAILED_TO_START_STREAM, false, classifyModelError({ message: FAILED_TO_START_STREAM }));
    return;
  }
  if (transportError !== null || meta === null || meta.error) {
    // Bytes arrived and then the stream broke (or ended without its metadata): what arrived is a partial reply,
    // kept and marked; the prompt carries the reason.
    const broken = transportError !== null && !stalled && parser.text !== '' ? STREAM_BROKE : null;
    const message = meta?.error ?? broken ?? (transportError instanceof Error && transportError.message ? transportError.message : parser.metadataError ?? 'The reply stream ended unexpectedly.');
    const keepPartial = text.length > 0 && (meta ? meta.isPartial === true : true);
    await fail(failedChatText(message), keepPartial, classifyModelError({ message }));
    return;
  }
  // An image-lines reply is empty when it decodes to no text and no image (its raw lines are not the answer).
  if (reply.imageLines ? text.trim() === '' && reply.imageLines.images.length === 0 : parser.text.trim() === '') {
    // Spec 000 section 8, two wordings: nothing at all came back, or the model worked (reasoning, output tokens)
    // but gave no message content.
    const worked = parser.thinking.trim() !== '' || (meta.outputTokens ?? 0) > 0;
    const title = worked ? NO_MESSAGE_CONTENT_RETURNED : NO_MESSAGE_RETURNED;
    await fail(title, false, { title, text: NO_MESSAGE_RETURNED_TEXT, tone: 'orange', durationMs: 15_000 });
    return;
  }
  await host.append([
    ...(await imageEvents()),
    makeEvent('reply.completed', { ...base, text, thinking, cost, paymentSource: meta.paymentSource ?? null, outputTokens, inputTokens }, host.newEventId(), at),
  ]);
}
