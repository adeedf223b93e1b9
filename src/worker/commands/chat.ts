/**
 * Chat commands: the submit flow of spec 000 section 4, in its seven steps and order, and Stop.
 *
 *   (1) validate; (2) check balance; (3) describe pending images; (4) create the conversation if new;
 *   (5) add the user message; (6) create a pending assistant message (not in multi-model mode);
 *   (7) call the chat handler (one model: POST /api/stream-gpt; several: ./multimodel.ts).
 *
 * While a reply generates in the conversation (the pending flag), Send queues the message instead
 * (./queue.ts); the queue sends it when the replies end. Steps 4 to 6 (and the queue entry a queued message leaves)
 * are one append: the log never holds half a submit.
 */
import type { ChatMessage, ModelInfo, StreamGptRequest } from '../../protocol/api';
import type { ChatHandlers, SendMessageInput, SendMessageResult } from '../../protocol/engine';
import { MAX_EXTRA_MODELS } from '../../protocol/multi';
import { makeEvent, type NewEvent } from '../../events/catalogue';
import type { ConversationRow, MessageRow } from '../../events/model';
import type { EngineCore } from '../core';
import { classifyModelError } from '../services/errors';
import { ReplyStreamParser } from '../services/stream-parser';
import { gateway, GatewayError } from '../services/gateway';
import { defaultName, makeSlug } from '../services/ids';
import { activePath, buildTree, byTime, requestMessages } from '../services/history';
import { systemMessageFor } from '../services/instructions';
import { fitContext } from '../services/context-window';
import { detectSentiment } from '../services/tokens';
import { FAILED_TO_START_STREAM, MESSAGE_REQUIRED, MODE_UNAVAILABLE, MODEL_ERROR, MULTI_MODEL } from '../services/messages';
import type { LiveReply } from '../services/reply-runner';
import { enqueueMessage } from './queue';
import { startMultiModel } from './multimodel';
import { searchForAll, searchThenReply } from './web';

export const REPLY_IN_PROGRESS = 'Please wait for the current response to complete.';

/** A conversation has a reply generating (the spec's pending flag). */
export function isPending(core: EngineCore, slug: string): boolean {
  for (const r of core.live.values()) if (r.slug === slug) return true;
  return false;
}

/** What a request sends for one model: system prompt, then the history that fits the model's context window. */
export function buildRequestMessages(conversation: ConversationRow, history: readonly MessageRow[], user: MessageRow, model: ModelInfo, maxTokens: number, now: number): { messages: ChatMessage[]; omitted: number } {
  const fitted = fitContext({
    system: [systemMessageFor(conversation, model.name, now)],
    history: requestMessages([...history, user]),
    contextLength: model.contextLength,
    maxTokens,
  });
  return { messages: fitted.messages, omitted: fitted.omitted };
}

/** The currency the user pays in (spec 001): USD when the USD balance is above 0, else XNO. */
export function sessionCurrency(core: EngineCore): 'USD' | 'XNO' {
  const usd = Number.parseFloat(core.session$.value.session?.usd_balance ?? '0');
  return usd > 0 ? 'USD' : 'XNO';
}

/**
 * Asks the gateway what a request to paid models needs when the session's balance is below the paid-use threshold:
 * the gateway refuses to hold it and answers 402 with the amount (requiredBalance in XNO, requiredUsd), which the
 * notice shows in the user's currency. Should the balance have arrived meanwhile, the probe is accepted: it is
 * abandoned at once (its hold is given back) and the submit goes on.
 */
async function balanceRefusal(core: EngineCore, conversation: ConversationRow | null, prompt: string, paid: ModelInfo[], now: number): Promise<SendMessageResult | null> {
  let history: MessageRow[] = [];
  if (conversation) {
    const rows = await core.db.messages.where('conversationSlug').equals(conversation.slug).toArray();
    rows.sort(byTime);
    history = activePath(buildTree(rows));
  }
  const base = conversation ?? { instructions: '' };
  const user = { id: 0, conversationSlug: '', timestamp: now, role: 'user', prompt, model: '', status: 'done', parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: now } satisfies MessageRow;
  const maxTokens = core.preferences$.value.maxTokens;
  const conversationUUID = conversation?.uuid ?? 'new-conversation';
  const controller = new AbortController();
  try {
    const payloads = paid.map((m, modelIndex) => ({ modelIndex, model: m.id, messages: buildRequestMessages(base as ConversationRow, history, user, m, maxTokens, now).messages }));
    const [first] = payloads;
    const body =
      payloads.length === 1 && first
        ? await gateway.streamReply({ model: first.model, messages: first.messages, conversationUUID, maxTokens }, controller.signal)
        : await gateway.multiReply({ conversationUUID, models: paid.map((m) => m.id), modelPayloads: payloads, maxTokens, isMultiModel: true }, controller.signal);
    controller.abort();
    void body.cancel().catch(() => undefined);
    await core.refreshSession();
    return null;
  } catch (error) {
    if (!(error instanceof GatewayError)) return { ok: false, error: FAILED_TO_START_STREAM };
    const b = error.body;
    core.notify(classifyModelError({ status: error.status, code: b?.error, message: b?.message, body: b, currency: sessionCurrency(core) }));
    return { ok: false, error: error.status === 402 ? MODEL_ERROR.insufficientBalanceTitle : (b?.message ?? FAILED_TO_START_STREAM), notified: true };
  }
}

export type Submit = (input: SendMessageInput, queuedId?: string) => Promise<SendMessageResult>;

/** The submit flow. `queuedId`: the queued message being sent (its queue entry leaves in the same append). */
export function submitter(core: EngineCore): Submit {
  return async function submit(input, queuedId) {
    await core.whenStarted();
    if (!core.storageOk) return { ok: false, error: 'Local storage unavailable', notified: true };

    // (1) Validate.
    const mode = input.mode ?? 'chat';
    if (mode !== 'chat') return { ok: false, error: MODE_UNAVAILABLE[mode] };
    const prompt = input.prompt.trim();
    const hasExtras = (input.attachments?.length ?? 0) > 0 || (input.scrapedContent?.length ?? 0) > 0;
    if (prompt === '' && !hasExtras) return { ok: false, error: MESSAGE_REQUIRED };
    if (core.models$.value.models.length === 0) await core.loadModels();
    const catalogue = core.models$.value;
    // A prompt sent before the tab had the catalogue (or with no choice made) goes to the default model.
    const wanted = input.model || catalogue.defaultModel;
    const model = catalogue.models.find((m) => m.id === wanted);
    if (!model) return { ok: false, error: `Unknown model: ${input.model}` };
    const extraIds = input.extraModels ?? [];
    if (extraIds.length > MAX_EXTRA_MODELS) return { ok: false, error: MULTI_MODEL.tooManyExtras };
    if (new Set([model.id, ...extraIds]).size !== extraIds.length + 1) return { ok: false, error: MULTI_MODEL.duplicate };
    const extras: ModelInfo[] = [];
    for (const id of extraIds) {
      const m = catalogue.models.find((x) => x.id === id);
      if (!m) return { ok: false, error: `Unknown model: ${id}` };
      if (m.modality !== 'text') return { ok: false, error: MULTI_MODEL.textOnly };
      extras.push(m);
    }

    const now = Date.now();
    let conversation = input.slug ? await core.db.conversations.where('slug').equals(input.slug).first() : undefined;
    if (input.slug && !conversation) return { ok: false, error: 'Conversation not found' };
    // The pending flag: while a reply generates here, Send queues the message (chat mode only).
    if (conversation && isPending(core, conversation.slug)) {
      if (queuedId !== undefined) return { ok: false, error: REPLY_IN_PROGRESS };
      return enqueueMessage(core, conversation.slug, { ...input, prompt }, model.id, extraIds, now);
    }

    // (2) Check balance: a paid model needs a balance above the threshold. Without one, the gateway is asked what
    // this request needs (its 402 names the amount it would hold); nothing is written.
    if (core.session$.value.session === null) await core.refreshSession();
    const paid = [model, ...extras].filter((m) => !m.free);
    if (paid.length > 0 && !core.session$.value.canUsePaidModels) {
      const refused = await balanceRefusal(core, conversation ?? null, prompt, paid, now);
      if (refused) return refused;
    }

    // (3) Describe pending images: attachments are another issue; nothing is pending until they exist.

    // (4) Create the conversation if new.
    const events: NewEvent[] = [];
    let history: MessageRow[] = [];
    if (!conversation) {
      conversation = {
        id: core.ids.next(now),
        uuid: crypto.randomUUID(),
        slug: makeSlug(prompt, crypto.getRandomValues(new Uint8Array(7))),
        name: defaultName(prompt),
        createdAt: now,
        updatedAt: now,
        latestMessage: '',
        isMediaOnly: false,
      };
      events.push(makeEvent('conversation.created', { conversation }, crypto.randomUUID(), now));
    } else {
      const rows = await core.db.messages.where('conversationSlug').equals(conversation.slug).toArray();
      rows.sort(byTime);
      history = activePath(buildTree(rows));
    }
    const slug = conversation.slug;

    // (5) Add the user message. Its request is built first: the user message records what the request left out.
    const maxTokens = core.preferences$.value.maxTokens;
    const last = history.at(-1);
    const branch = { alternativeGroup: null, branchIndex: 0, isActiveBranch: true, updatedAt: now };
    const user: MessageRow = {
      id: core.ids.next(now),
      conversationSlug: slug,
      timestamp: now,
      role: 'user',
      prompt,
      model: model.id,
      mode: 'chat',
      status: 'done',
      parentMessageId: last?.id ?? null,
      ...branch,
      branchDepth: last ? last.branchDepth : 0,
    };
    const sentiment = detectSentiment(prompt);
    if (sentiment) user.sentiment = sentiment;
    if (input.scrapedContent && input.scrapedContent.length > 0) user.scrapedContent = input.scrapedContent;
    const main = buildRequestMessages(conversation, history, user, model, maxTokens, now);
    if (main.omitted > 0) user.contextOmitted = main.omitted;
    events.push(makeEvent('message.added', { message: user }, crypto.randomUUID(), now));
    if (queuedId !== undefined) {
      events.push(makeEvent('queue.messageRemoved', { conversationSlug: slug, id: queuedId, reason: 'submitted', at: now }, crypto.randomUUID(), now));
    }

    // (7, several models) Multi-model: no pending message here; each model's reply is stored once it starts.
    if (extras.length > 0) {
      try {
        await core.append(events);
      } catch {
        return { ok: false, error: 'Local storage unavailable', notified: true };
      }
      const targets = [model, ...extras].map((m) => ({ model: m, messages: buildRequestMessages(conversation, history, user, m, maxTokens, now).messages }));
      if (input.webSearch) {
        const depth = input.webSearch.depth;
        void searchForAll(core, user, depth, targets).then((t) => t && startMultiModel(core, { conversation, user, targets: t, maxTokens }));
      } else void startMultiModel(core, { conversation, user, targets, maxTokens });
      return { ok: true, slug, userMessageId: user.id };
    }

    // (6) Create the pending assistant message.
    const assistant: MessageRow = {
      id: core.ids.next(now),
      conversationSlug: slug,
      timestamp: now + 1,
      role: 'assistant',
      prompt: '',
      model: model.id,
      mode: 'chat',
      status: 'pending',
      parentMessageId: user.id,
      ...branch,
      branchDepth: user.branchDepth,
      updatedAt: now + 1,
    };
    const requestId = crypto.randomUUID();
    events.push(
      makeEvent('message.added', { message: assistant }, crypto.randomUUID(), now),
      makeEvent('reply.started', { messageId: assistant.id, conversationSlug: slug, model: model.id, requestId, at: now }, crypto.randomUUID(), now),
    );
    const reply: LiveReply = { messageId: assistant.id, userMessageId: user.id, slug, requestId, parser: new ReplyStreamParser(), controller: new AbortController(), stoppedByUser: false };
    // Live before the append commits, so that the view shows the new reply as pending, never as an empty stream.
    core.live.set(reply.messageId, reply);
    try {
      await core.append(events);
    } catch {
      core.live.delete(reply.messageId);
      return { ok: false, error: 'Local storage unavailable', notified: true };
    }

    // (7) Call the chat handler.
    const request: StreamGptRequest = { model: model.id, messages: main.messages, conversationUUID: conversation.uuid, requestId, maxTokens };
    const open = (r: StreamGptRequest, signal: AbortSignal) => gateway.streamReply(r, signal);
    core.startReply(reply, input.webSearch ? searchThenReply(core, { user, depth: input.webSearch.depth, request }, open) : (signal) => open(request, signal));
    return { ok: true, slug, userMessageId: user.id };
  };
}

export function chatCommands(core: EngineCore): ChatHandlers {
  const submit = submitter(core);
  return {
    sendMessage: (input: SendMessageInput) => submit(input),

    async stopReply(slug: string): Promise<void> {
      for (const reply of core.live.values()) {
        if (reply.slug !== slug) continue;
        reply.stoppedByUser = true;
        // Tell the gateway first: a dropped connection alone keeps the upstream going for a possible resume.
        if (reply.requestId) void gateway.cancelReply(reply.requestId).catch(() => undefined);
        reply.controller.abort();
      }
    },
  };
}
