/**
 * Multi-model replies (spec 000 sections 4, 5 and 7): one prompt, the chosen model and up to 4 extra text models,
 * one POST /api/talk-to-gpt-multi. The NDJSON lines (./multi-stream.ts) are split per model into a
 * byte stream in the single-reply framing, and each runs through the same reply runner as a single reply: live
 * text, checkpoints, and one terminal event per model. Each reply is its own assistant message with its model,
 * cost and error; one failing model does not stop the others (its failure stays on its own message, ownError).
 *
 * The assistant messages are stored once the gateway has accepted the request (spec: no pending message in
 * multi-model mode). Until then the replies are live placeholders, so the conversation is pending (Send queues).
 * When no model starts, the user message is marked with 'Failed to start multi-model stream' (or the gateway's
 * own message) and the notice of its status is shown.
 */
import { waitForNetwork } from '../../infra/network';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { ConversationRow, MessageRow } from '../../../events/model';
import type { ChatMessage, ModelInfo } from '../../../protocol/api';
import type { TalkToGptMultiRequest } from '../../../protocol/multi';
import type { Sampling } from '../../../protocol/sampling';
import { encodeMetadata, type StreamMetadata } from '../../../protocol/stream';
import type { EngineCore } from '../../core';
import { classifyModelError, streamFailureText } from '../../infra/errors';
import { gateway, GatewayError } from '../../infra/gateway';
import { MultiStreamParser, type MultiStreamEvent } from './multi-stream';
import { pendingAssistant } from '../../../shared/history';
import { ReplyStreamParser } from '../replies/stream-parser';
import type { LiveReply } from '../replies/reply-runner';
import { DURATION, FAILED_TO_START_MULTI_STREAM, MULTI_MODEL } from '../../../shared/messages';
import { sessionCurrency } from '../replies/submit';
import { liveReplies } from '../replies/live';

export interface MultiModelTarget {
  model: ModelInfo;
  /** This model's messages (system prompt and the history that fits its context window). */
  messages: ChatMessage[];
  /** The settings the user set for this model (../replies/model-settings.ts). */
  settings?: Sampling;
}

export interface MultiModelRun {
  conversation: ConversationRow;
  user: MessageRow;
  /** The chosen model first, then the extras. */
  targets: MultiModelTarget[];
  maxTokens: number;
}

/** One model's share of the line stream, as a byte stream in the single-reply framing (src/protocol/stream.ts). */
class ModelChannel {
  readonly stream: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private metadata = false;
  private error: string | null = null;
  closed = false;

  constructor() {
    this.stream = new ReadableStream<Uint8Array>({ start: (c) => void (this.controller = c) });
  }
  chunk(text: string): void {
    if (!this.closed && text !== '') this.controller.enqueue(this.encoder.encode(text));
  }
  fail(error: string): void {
    this.error ??= error;
  }
  meta(metadata: StreamMetadata): void {
    if (this.closed || this.metadata) return;
    this.metadata = true;
    const m = this.error !== null && metadata.error === undefined ? { ...metadata, error: this.error } : metadata;
    this.controller.enqueue(this.encoder.encode(encodeMetadata(m)));
  }
  /** The model's lines ended: an error with no metadata still ends the reply with that error. */
  complete(): void {
    if (this.closed) return;
    if (!this.metadata && this.error !== null) this.meta({ error: this.error, isPartial: false });
    this.closed = true;
    this.controller.close();
  }
  /** The whole line stream broke: this model's reply ends as it is (partial text kept and marked). */
  abort(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.controller.error(error);
  }
}

export async function startMultiModel(core: EngineCore, run: MultiModelRun): Promise<void> {
  const { conversation, user, targets } = run;
  const slug = conversation.slug;
  const requestId = crypto.randomUUID();
  const controller = new AbortController();
  const now = Date.now();
  // Live placeholders: the conversation is pending from the moment Send is pressed.
  const replies: LiveReply[] = targets.map((_, i) => ({
    messageId: core.ids.next(now),
    userMessageId: user.id,
    slug,
    requestId: `${requestId}:${i}`,
    parser: new ReplyStreamParser(),
    controller,
    stoppedByUser: false,
    ownError: true,
  }));
  for (const r of replies) liveReplies(core).live.set(r.messageId, r);
  liveReplies(core).live$.next(slug);
  const release = (): void => {
    for (const r of replies) liveReplies(core).live.delete(r.messageId);
    liveReplies(core).live$.next(slug);
  };

  const request: TalkToGptMultiRequest = {
    conversationUUID: conversation.uuid,
    models: targets.map((t) => t.model.id),
    modelPayloads: targets.map((t, modelIndex) => ({ modelIndex, model: t.model.id, messages: t.messages })),
    prompt: typeof user.prompt === 'string' ? user.prompt : '',
    requestId,
    maxTokens: run.maxTokens,
    // Each model's own settings (its "Model settings" panel), by model id.
    modelSettings: Object.fromEntries(targets.map((t) => [t.model.id, t.settings ?? {}])),
    recommendedTier: targets.some((t) => !t.model.free) ? 'paid' : 'free',
    isMultiModel: true,
  };
  let body: ReadableStream<Uint8Array>;
  try {
    // Offline, the request waits for the network (src/worker/infra/network.ts).
    await waitForNetwork(controller.signal);
    body = await gateway.multiReply(request, controller.signal);
  } catch (error) {
    release();
    await failToStart(core, run, replies[0]?.messageId ?? 0, error);
    return;
  }

  // (6, once started) Each model's reply is its own assistant message.
  const at = Date.now();
  const events: NewEvent[] = [];
  replies.forEach((r, i) => {
    const model = (targets[i] as MultiModelTarget).model;
    const message: MessageRow = { ...pendingAssistant(r.messageId, user, model.id, at + i + 1), multiModelRequest: requestId };
    // An Auto turn's column of the model Auto chose says so, like a single reply ("Auto · <model name>"); the extra
    // columns are models the user chose.
    if (user.isAutoModel === true && model.id === user.autoModelSelectedModel) Object.assign(message, { isAutoModel: true, autoModelSelectedModel: model.id });
    events.push(
      makeEvent('message.added', { message }, crypto.randomUUID(), at),
      makeEvent('reply.started', { messageId: r.messageId, conversationSlug: slug, model: model.id, requestId: r.requestId, at }, crypto.randomUUID(), at),
    );
  });
  try {
    await core.append(events);
  } catch {
    controller.abort();
    release();
    return;
  }

  const channels = new Map<string, ModelChannel>();
  targets.forEach((t, i) => {
    const channel = new ModelChannel();
    channels.set(t.model.id, channel);
    const reply = replies[i] as LiveReply;
    liveReplies(core).startReply(reply, () => Promise.resolve(channel.stream), t.model.id);
  });
  // A model refused with a status (402 for a paid model the balance cannot hold, 429, 503...) gets the notice of
  // that status, in place of the reply runner's generic one.
  const byModel = new Map(targets.map((t, i) => [t.model.id, replies[i] as LiveReply]));
  void pump(body, channels, (e) => {
    const reply = byModel.get(e.modelId);
    if (reply) reply.quietFailure = true;
    // A paid model the balance cannot hold: the notice names what it needs, in the user's currency.
    const body = { error: e.code, message: e.error, ...(e.requiredBalance ? { requiredBalance: e.requiredBalance } : {}), ...(e.requiredUsd ? { requiredUsd: e.requiredUsd } : {}) };
    core.notify(classifyModelError({ status: e.status, code: e.code, message: e.error, body, currency: sessionCurrency(core) }));
  }, () => {
    core.notify({ title: MULTI_MODEL.unreadableTitle, text: MULTI_MODEL.unreadableText, tone: 'orange', durationMs: DURATION.medium });
  });
}

type RefusedFn = (refusal: Extract<MultiStreamEvent, { kind: 'error' }> & { status: number }) => void;

/**
 * Reads the line stream and feeds each model's channel. A malformed line is skipped (the other lines, and every
 * model's reply, go on); the first one of a request calls `unreadable` (the user's notice), each one is logged.
 */
async function pump(body: ReadableStream<Uint8Array>, channels: Map<string, ModelChannel>, refused: RefusedFn, unreadable: () => void): Promise<void> {
  const parser = new MultiStreamParser(channels.keys());
  const reader = body.getReader();
  let told = false;
  const feed = (events: ReturnType<MultiStreamParser['push']>): void => {
    for (const e of events) {
      if (e.kind === 'malformed') {
        console.warn(`Multi-model stream: skipped a line (${e.reason})`, e.line.slice(0, 200));
        if (!told) unreadable();
        told = true;
        continue;
      }
      const channel = channels.get(e.modelId);
      if (!channel) continue;
      if (e.kind === 'chunk') channel.chunk(e.text);
      else if (e.kind === 'error') {
        if (e.status !== undefined) refused({ ...e, status: e.status });
        channel.fail(e.error);
      }
      else if (e.kind === 'metadata') channel.meta(e.metadata);
      else channel.complete();
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      feed(parser.push(value));
    }
    feed(parser.finish());
    // A model whose lines stopped without 'complete': its reply ends as received (no metadata = cut off).
    for (const c of channels.values()) c.complete();
  } catch (error) {
    for (const c of channels.values()) c.abort(error);
  }
}

/** No model started: the user message is marked failed and the notice of the gateway's answer is shown. */
async function failToStart(core: EngineCore, run: MultiModelRun, messageId: number, error: unknown): Promise<void> {
  let text: string = FAILED_TO_START_MULTI_STREAM;
  if (error instanceof GatewayError) {
    const body = error.body;
    text = streamFailureText(body, { multi: true });
    core.notify(classifyModelError({ status: error.status, code: body?.error, message: body?.message, body, currency: sessionCurrency(core) }));
  } else if (!(error instanceof DOMException && error.name === 'AbortError')) {
    core.notify(classifyModelError({ message: FAILED_TO_START_MULTI_STREAM }));
  }
  const at = Date.now();
  const slug = run.conversation.slug;
  // messageId names no stored message (none was stored): only the user message is marked.
  await core
    .append([
      makeEvent(
        'reply.failed',
        { messageId, userMessageId: run.user.id, conversationSlug: slug, error: text, keepPartial: false, text: '', thinking: '', cost: 0, paymentSource: null, at },
        crypto.randomUUID(),
        at,
      ),
    ])
    .catch(() => undefined);
}
