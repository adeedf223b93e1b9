/**
 * Chat: the chat mode's handler of the submit flow (../replies/submit.ts, steps 6 and 7: one model streams through
 * POST /api/stream-gpt after a pending assistant message; several through ../multimodel/commands.ts, with no pending
 * message), its balance probe (step 2), and the commands Send and Stop.
 */
import { PLACEHOLDER_CONVERSATION_UUID, type ChatMessage, type ModelInfo, type StreamGptRequest } from '../../../protocol/api';
import type { ChatHandlers, SendMessageInput, SendMessageResult } from '../../../protocol/engine';
import type { ConversationRow, MessageRow } from '../../../events/model';
import { makeEvent } from '../../../events/catalogue';
import type { EngineCore } from '../../core';
import { classifyModelError } from '../../infra/errors';
import { ReplyStreamParser } from '../replies/stream-parser';
import { gateway, GatewayError } from '../../infra/gateway';
import { pendingAssistant, requestMessages } from '../../../shared/history';
import { systemMessageFor } from '../instructions/system-message';
import { fitContext } from '../replies/context-window';
import { FAILED_TO_START_STREAM, MODEL_ERROR } from '../../../shared/messages';
import type { LiveReply } from '../replies/reply-runner';
import { startMultiModel } from '../multimodel/commands';
import { searchForAll, searchThenReply } from '../web/commands';
import { activeHistory, sessionCurrency, submitter, type BalanceProbe, type Submit } from '../replies/submit';
import { registerModeHandler, type ModeHandler, type Submission } from '../replies/submit-plugins';
import { liveReplies } from '../replies/live';
import { allModelSettings, recommendedTier, requestSettings } from '../replies/model-settings';

export { isPending, REPLY_IN_PROGRESS, sessionCurrency } from '../replies/submit';

/** What a request sends for one model: system prompt, then the history that fits the model's context window. */
export function buildRequestMessages(conversation: Pick<ConversationRow, 'instructions'>, history: readonly MessageRow[], user: MessageRow, model: ModelInfo, maxTokens: number, now: number): { messages: ChatMessage[]; omitted: number } {
  const fitted = fitContext({
    system: [systemMessageFor(conversation, model.name, now)],
    history: requestMessages([...history, user]),
    contextLength: model.contextLength,
    maxTokens,
  });
  return { messages: fitted.messages, omitted: fitted.omitted };
}

/**
 * Step 2 for chat: the gateway is asked what the request to the paid models needs (it refuses to hold it and
 * answers 402 with the amount, requiredBalance in XNO and requiredUsd, which the notice shows in the user's
 * currency). Should the balance have arrived meanwhile, the probe is accepted: it is abandoned at once (its hold is
 * given back) and the submit goes on.
 */
export const chatBalanceProbe: BalanceProbe = async (core, { conversation, prompt, paid, now }) => {
  const history = conversation ? await activeHistory(core, conversation.slug) : [];
  const user = { id: 0, conversationSlug: '', timestamp: now, role: 'user', prompt, model: '', status: 'done', parentMessageId: null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: now } satisfies MessageRow;
  const maxTokens = core.preferences$.value.maxTokens;
  const conversationUUID = conversation?.uuid ?? PLACEHOLDER_CONVERSATION_UUID;
  const controller = new AbortController();
  try {
    // Each model's own settings: its maxTokens sizes the hold the gateway asks for.
    const all = await allModelSettings(core);
    const settings = paid.map((m) => requestSettings(all[m.id], m, maxTokens));
    const payloads = paid.map((m, modelIndex) => ({ modelIndex, model: m.id, messages: buildRequestMessages(conversation ?? { instructions: '' }, history, user, m, (settings[modelIndex] as { maxTokens: number }).maxTokens, now).messages }));
    const [first] = payloads;
    const body =
      payloads.length === 1 && first && paid[0]
        ? await gateway.streamReply({ model: first.model, messages: first.messages, conversationUUID, ...settings[0], recommendedTier: recommendedTier(paid[0]) }, controller.signal)
        : await gateway.multiReply(
            { conversationUUID, models: paid.map((m) => m.id), modelPayloads: payloads, maxTokens, modelSettings: Object.fromEntries(paid.map((m, i) => [m.id, settings[i] ?? {}])), recommendedTier: 'paid', isMultiModel: true },
            controller.signal,
          );
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
};

const LOCAL_STORAGE_FAILED: SendMessageResult = { ok: false, error: MODEL_ERROR.localStorageTitle, notified: true };

/** Steps 6 and 7 of a chat submit. */
async function runChat(s: Submission): Promise<SendMessageResult> {
  const { core, conversation, history, user, events, model, extras, maxTokens, now } = s;
  const slug = conversation.slug;
  // The settings the user set for each model (its "Model settings" panel), cut to what it takes.
  const all = await allModelSettings(core);
  const settingsOf = (m: ModelInfo) => requestSettings(all[m.id], m, maxTokens);
  const mainSettings = settingsOf(model);
  // The user message records what its request left out (the view marks where the context began).
  const main = buildRequestMessages(conversation, history, user, model, mainSettings.maxTokens, now);
  if (main.omitted > 0) user.contextOmitted = main.omitted;

  // (7, several models) Multi-model: no pending message here; each model's reply is stored once it starts.
  if (extras.length > 0) {
    try {
      await core.append(events);
    } catch {
      return LOCAL_STORAGE_FAILED;
    }
    const targets = [model, ...extras].map((m) => {
      const settings = m === model ? mainSettings : settingsOf(m);
      return { model: m, settings, messages: m === model ? main.messages : buildRequestMessages(conversation, history, user, m, settings.maxTokens, now).messages };
    });
    if (s.input.webSearch) {
      const depth = s.input.webSearch.depth;
      void searchForAll(core, user, depth, targets).then((t) => t && startMultiModel(core, { conversation, user, targets: t, maxTokens }));
    } else void startMultiModel(core, { conversation, user, targets, maxTokens });
    return { ok: true, slug, userMessageId: user.id };
  }

  // (6) Create the pending assistant message.
  const assistant = pendingAssistant(core.ids.next(now), user, model.id, now + 1);
  // The reply of an Auto turn says so too (its header reads "Auto · <model name>").
  if (user.isAutoModel === true) Object.assign(assistant, { isAutoModel: true, autoModelSelectedModel: model.id });
  const requestId = crypto.randomUUID();
  events.push(
    makeEvent('message.added', { message: assistant }, crypto.randomUUID(), now),
    makeEvent('reply.started', { messageId: assistant.id, conversationSlug: slug, model: model.id, requestId, at: now }, crypto.randomUUID(), now),
  );
  const reply: LiveReply = { messageId: assistant.id, userMessageId: user.id, slug, requestId, parser: new ReplyStreamParser(), controller: new AbortController(), stoppedByUser: false };
  // Live before the append commits, so that the view shows the new reply as pending, never as an empty stream.
  liveReplies(core).live.set(reply.messageId, reply);
  try {
    await core.append(events);
  } catch {
    liveReplies(core).live.delete(reply.messageId);
    return LOCAL_STORAGE_FAILED;
  }

  // (7) Call the chat handler.
  const scrapedUrls = (user.scrapedContent ?? []).map((p) => p.url).slice(0, 25);
  const request: StreamGptRequest = {
    model: model.id,
    messages: main.messages,
    conversationUUID: conversation.uuid,
    requestId,
    ...mainSettings,
    recommendedTier: recommendedTier(model),
    // The pages were read by POST /api/scrape and are in the messages: the gateway has nothing to flag as not run.
    ...(scrapedUrls.length > 0 ? { scrapedUrls, webContextIncluded: true } : {}),
  };
  const open = (r: StreamGptRequest, signal: AbortSignal) => gateway.streamReply(r, signal);
  // With web search on, the search runs first and its results join the request (../web/commands.ts).
  liveReplies(core).startReply(reply, s.input.webSearch ? searchThenReply(core, { user, depth: s.input.webSearch.depth, request }, open) : (signal) => open(request, signal), model.id);
  return { ok: true, slug, userMessageId: user.id };
}

export const chatMode: ModeHandler = {
  mode: 'chat',
  queueable: true,
  multiModel: true,
  accepts: (model) => model.modality === 'text',
  run: runChat,
};

/** The submit flow with this engine's balance probe (the queue sends through it too). */
export function chatSubmitter(core: EngineCore): Submit {
  return submitter(core, chatBalanceProbe);
}

export function chatCommands(core: EngineCore): ChatHandlers {
  registerModeHandler(core, chatMode);
  const submit = chatSubmitter(core);
  return {
    sendMessage: (input: SendMessageInput) => submit(input),

    async stopReply(slug: string): Promise<void> {
      for (const reply of liveReplies(core).live.values()) {
        if (reply.slug !== slug) continue;
        reply.stoppedByUser = true;
        // Tell the gateway first: a dropped connection alone keeps the upstream going for a possible resume.
        if (reply.requestId) void gateway.cancelReply(reply.requestId).catch(() => undefined);
        reply.controller.abort();
      }
    },
  };
}
