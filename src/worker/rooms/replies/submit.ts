/**
 * The submit flow of spec 000 section 4, in its seven steps and order, for every mode:
 *
 *   (1) validate; (2) check balance; (3) describe pending images; (4) create the conversation if new;
 *   (5) add the user message; (6) create a pending assistant message (not in multi-model mode);
 *   (7) call the chat, video or image handler.
 *
 * Steps 1 to 5 are here; steps 6 and 7 belong to the mode's handler and step 3 to the attachment step, each
 * plugged in from its own module (./submit-plugins.ts). While a reply generates in the conversation (the pending
 * flag), Send queues the message in a mode that queues (chat) instead (../queue/commands.ts); the queue sends it when the
 * replies end. Steps 4 to 6 (and the queue entry a queued message leaves) are one append: the log never holds half
 * a submit.
 */
import type { ModelInfo } from '../../../protocol/api';
import type { SendMessageInput, SendMessageResult } from '../../../protocol/engine';
import { MAX_EXTRA_MODELS } from '../../../protocol/multi';
import { MAX_SCRAPE_URLS, SCRAPED_CONTENT_MAX_CHARS, TOO_MANY_SCRAPE_URLS } from '../../../protocol/web';
import { mediaModelOf } from '../../../protocol/media';
import { noticeCurrency } from '../../../protocol/money-format';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { ConversationRow, MessageRow } from '../../../events/model';
import type { EngineCore } from '../../core';
import { defaultName, makeSlug } from '../../infra/ids';
import { activePath, buildTree, byTime } from '../../../shared/history';
import { detectSentiment, promptTokens, textTokens } from '../../../shared/tokens';
import { AUTO_MODEL_ID, chooseAutoModel } from '../../../protocol/auto-model';
import { ATTACHMENTS_UNAVAILABLE, MESSAGE_REQUIRED, MODE_UNAVAILABLE, MODEL_ERROR, MULTI_MODEL } from '../../../shared/messages';
import { enqueueMessage } from './queue-store';
import { attachmentStep, modeHandler, type PreparedAttachments } from './submit-plugins';
import { liveReplies } from './live';
import { firstChars } from '../../../projections/projection';
import { INSTRUCTIONS_MAX_CHARS } from '../instructions/system-message';

export const REPLY_IN_PROGRESS = 'Please wait for the current response to complete.';

/** A conversation has a reply generating (the spec's pending flag). */
export function isPending(core: EngineCore, slug: string): boolean {
  for (const r of liveReplies(core).live.values()) if (r.slug === slug) return true;
  return false;
}

/** The currency the user reads amounts in (protocol/money-format.ts noticeCurrency): dollars unless they pay in nano. */
export function sessionCurrency(core: EngineCore): 'USD' | 'XNO' {
  return noticeCurrency(core.session$.value.session);
}

/**
 * A message's scraped pages as stored (spec 000 section 1: up to 25 unique URLs a message): one page per URL (the
 * last one given wins), each text cut at SCRAPED_CONTENT_MAX_CHARS as the gateway cuts it. null past the cap.
 */
export function scrapedPagesOf(pages: SendMessageInput['scrapedContent']): NonNullable<SendMessageInput['scrapedContent']> | null {
  const byUrl = new Map<string, NonNullable<SendMessageInput['scrapedContent']>[number]>();
  for (const p of pages ?? []) {
    byUrl.delete(p.url);
    byUrl.set(p.url, { url: p.url.slice(0, 2000), title: p.title.slice(0, 1000), content: p.content.slice(0, SCRAPED_CONTENT_MAX_CHARS) });
  }
  return byUrl.size > MAX_SCRAPE_URLS ? null : [...byUrl.values()];
}

/** The conversation's messages along its active branch. */
export async function activeHistory(core: EngineCore, slug: string): Promise<MessageRow[]> {
  const rows = await core.db.messages.where('conversationSlug').equals(slug).toArray();
  rows.sort(byTime);
  return activePath(buildTree(rows));
}

/**
 * Step 2 for one mode, when a paid model is chosen and the balance is below the paid-use threshold: the mode asks
 * the gateway what the request needs (its 402 names the amount) and raises the notice. null = the balance arrived
 * meanwhile, go on.
 */
export type BalanceProbe = (core: EngineCore, request: { conversation: ConversationRow | null; prompt: string; paid: ModelInfo[]; now: number }) => Promise<SendMessageResult | null>;

export type Submit = (input: SendMessageInput, queuedId?: string) => Promise<SendMessageResult>;

/**
 * What Auto picks for this send: needs from the attachments (an image among them), web search, the request's size
 * (the conversation's active history, the prompt and the room kept for the reply) and the balance.
 */
async function autoModelFor(core: EngineCore, input: SendMessageInput, prompt: string): Promise<ModelInfo | undefined> {
  const ids = [...new Set(input.attachments ?? [])];
  const items = ids.length > 0 ? await core.db.library.bulkGet(ids.map(Number)) : [];
  const vision = items.some((r) => r?.type === 'image');
  let tokens = textTokens(prompt) + core.preferences$.value.maxTokens;
  for (const r of items) if (r && r.type !== 'image') tokens += textTokens(r.content.join('\n'));
  for (const p of input.scrapedContent ?? []) tokens += textTokens(p.content);
  if (input.slug) for (const m of await activeHistory(core, input.slug)) tokens += promptTokens(m.prompt);
  if (core.session$.value.session === null) await core.refreshSession();
  const catalogue = core.models$.value;
  return chooseAutoModel(catalogue.models, catalogue.defaultModel, { vision, web: input.webSearch !== undefined, tokens, canUsePaid: core.session$.value.canUsePaidModels });
}

/** The submit flow. `queuedId`: the queued message being sent (its queue entry leaves in the same append). */
export function submitter(core: EngineCore, balanceProbe: BalanceProbe): Submit {
  return async function submit(input, queuedId) {
    await core.whenStarted();
    // A system prompt or a setting saved just before (by any tab) is what this message is sent with.
    await core.writesSettled();
    if (!core.storageOk) return { ok: false, error: MODEL_ERROR.localStorageTitle, notified: true };

    // (1) Validate.
    const mode = input.mode ?? 'chat';
    const handler = modeHandler(core, mode);
    if (!handler) return { ok: false, error: mode === 'chat' ? 'Chat is not available' : MODE_UNAVAILABLE[mode] };
    let prompt = input.prompt.trim();
    const scraped = scrapedPagesOf(input.scrapedContent);
    if (scraped === null) return { ok: false, error: TOO_MANY_SCRAPE_URLS };
    if (input.scrapedContent) input = { ...input, scrapedContent: scraped, scrapedUrls: scraped.map((p) => p.url) };
    const attachments = [...new Set(input.attachments ?? [])];
    const hasExtras = attachments.length > 0 || (input.scrapedContent?.length ?? 0) > 0;
    if (prompt === '' && !hasExtras && !handler.promptFor) return { ok: false, error: MESSAGE_REQUIRED };
    if (core.models$.value.models.length === 0) await core.loadModels();
    const catalogue = core.models$.value;
    // A prompt sent before the tab had the catalogue (or with no choice made) goes to the mode's default model
    // (an image or video mode clicked before the catalogue arrived must not end up at the default text model).
    let wanted = input.model || (mode === 'image' || mode === 'video' ? mediaModelOf(mode, catalogue.models) : catalogue.defaultModel);
    // Auto (protocol/auto-model.ts): the cheapest model that can answer this prompt, chosen here, once, and recorded
    // on the messages (isAutoModel, autoModelSelectedModel), so a replay reads the choice and never makes it again.
    const auto = wanted === AUTO_MODEL_ID && !catalogue.models.some((m) => m.id === AUTO_MODEL_ID);
    if (auto) {
      const chosen = await autoModelFor(core, input, prompt);
      if (!chosen) return { ok: false, error: `Unknown model: ${input.model}` };
      wanted = chosen.id;
    }
    const model = catalogue.models.find((m) => m.id === wanted);
    if (!model) return { ok: false, error: `Unknown model: ${input.model}` };
    if (!handler.accepts(model)) return { ok: false, error: `${model.name} is not ${/^[aeiou]/.test(mode) ? 'an' : 'a'} ${mode} model` };
    if (handler.promptFor) {
      const filled = handler.promptFor(model, prompt);
      if (filled === null) return { ok: false, error: MESSAGE_REQUIRED };
      prompt = filled;
    }
    const extraIds = input.extraModels ?? [];
    if (extraIds.length > 0 && !handler.multiModel) return { ok: false, error: MULTI_MODEL.textOnly };
    if (extraIds.length > MAX_EXTRA_MODELS) return { ok: false, error: MULTI_MODEL.tooManyExtras };
    if (new Set([model.id, ...extraIds]).size !== extraIds.length + 1) return { ok: false, error: MULTI_MODEL.duplicate };
    const extras: ModelInfo[] = [];
    for (const id of extraIds) {
      const m = catalogue.models.find((x) => x.id === id);
      if (!m) return { ok: false, error: `Unknown model: ${id}` };
      if (m.modality !== 'text') return { ok: false, error: MULTI_MODEL.textOnly };
      extras.push(m);
    }
    const invalid = handler.validate?.(input, model) ?? null;
    if (invalid !== null) return { ok: false, error: invalid };
    const step3 = attachmentStep(core);
    if (attachments.length > 0 && !step3) return { ok: false, error: ATTACHMENTS_UNAVAILABLE };

    const now = Date.now();
    let conversation = input.slug ? await core.db.conversations.where('slug').equals(input.slug).first() : undefined;
    if (input.slug && !conversation) return { ok: false, error: 'Conversation not found' };
    // The pending flag: while a reply generates here, Send queues the message (chat mode only).
    if (conversation && isPending(core, conversation.slug)) {
      if (queuedId !== undefined || !handler.queueable) return { ok: false, error: REPLY_IN_PROGRESS };
      // A queued Auto message chooses when it is sent (its history is then longer).
      return enqueueMessage(core, conversation.slug, { ...input, prompt }, auto ? AUTO_MODEL_ID : model.id, extraIds, now);
    }

    // (2) Check balance: a paid model needs a balance above the threshold. Without one, the mode asks the gateway
    // what this request needs (its 402 names the amount it would hold); nothing is written.
    if (core.session$.value.session === null) await core.refreshSession();
    const paid = [model, ...extras].filter((m) => !m.free);
    if (paid.length > 0 && !core.session$.value.canUsePaidModels && handler.gatewayChecksBalance !== true) {
      const refused = await (handler.balanceProbe ?? balanceProbe)(core, { conversation: conversation ?? null, prompt, paid, now });
      if (refused) return refused;
    }

    // (3) Describe pending images (the attachment step, when attachments are built).
    let sent: MessageRow['prompt'] = prompt;
    const events: NewEvent[] = [];
    let prepared: PreparedAttachments | null = null;
    if (step3 && attachments.length > 0) {
      const step = await step3.prepare(core, { prompt, attachments, model, mode, now, extras, conversationUUID: conversation?.uuid, queued: queuedId !== undefined });
      if ('error' in step) return { ok: false, error: step.error };
      prepared = step;
      sent = step.prompt;
      events.push(...step.events);
    }
    const created = !conversation;

    // (4) Create the conversation if new.
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
        isMediaOnly: mode !== 'chat',
      };
      // The instructions chosen before the first message, else the default ones (issue 16), go with it.
      const instructions = firstChars(input.instructions ?? core.preferences$.value.defaultInstructions, INSTRUCTIONS_MAX_CHARS);
      if (instructions.trim() !== '') conversation.instructions = instructions;
      events.unshift(makeEvent('conversation.created', { conversation }, crypto.randomUUID(), now));
    } else {
      history = await activeHistory(core, conversation.slug);
    }
    const slug = conversation.slug;

    // (5) Add the user message.
    const last = history.at(-1);
    const user: MessageRow = {
      id: core.ids.next(now),
      conversationSlug: slug,
      timestamp: now,
      role: 'user',
      prompt: sent,
      model: model.id,
      mode,
      status: 'done',
      parentMessageId: last?.id ?? null,
      alternativeGroup: null,
      branchIndex: 0,
      isActiveBranch: true,
      branchDepth: last ? last.branchDepth : 0,
      updatedAt: now,
    };
    if (auto) Object.assign(user, { isAutoModel: true, autoModelSelectedModel: model.id });
    const sentiment = detectSentiment(prompt);
    if (sentiment) user.sentiment = sentiment;
    if (input.scrapedContent && input.scrapedContent.length > 0) user.scrapedContent = input.scrapedContent;
    if (prepared?.message) Object.assign(user, prepared.message);
    events.push(makeEvent('message.added', { message: user }, crypto.randomUUID(), now));
    if (prepared?.after) events.push(...(await prepared.after({ conversation, created, user, now })));
    if (queuedId !== undefined) {
      events.push(makeEvent('queue.messageRemoved', { conversationSlug: slug, id: queuedId, reason: 'submitted', at: now }, crypto.randomUUID(), now));
    }

    // (6) and (7): the mode's handler.
    return handler.run({ core, input, mode, model, extras, conversation, history, user, events, maxTokens: core.preferences$.value.maxTokens, now });
  };
}
