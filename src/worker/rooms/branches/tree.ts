/**
 * What the message-tree rooms (./commands.ts, ../messages/commands.ts) share: loading a conversation's tree, the "one branch
 * switch or generation at a time" rule (spec 000 section 4), the notices, and starting a reply into a new
 * assistant message along a path.
 */
import type { ChatMessage, StreamGptRequest } from '../../../protocol/api';
import type { TreeResult } from '../../../protocol/engine';
import type { NewEvent } from '../../../events/catalogue';
import type { ConversationRow, MessageRow } from '../../../events/model';
import type { EngineCore, Room, RoomKind } from '../../core';
import { fitContext } from '../replies/context-window';
import { gateway } from '../../infra/gateway';
import { buildTree, byTime, requestMessages, type MessageTree } from '../../../shared/history';
import { systemMessageFor } from '../instructions/system-message';
import { CONVERSATION_NOTICE, DURATION } from '../../../shared/messages';
import { ReplyStreamParser } from '../replies/stream-parser';
import type { LiveReply } from '../replies/reply-runner';
import { liveReplies } from '../replies/live';
import { allModelSettings, recommendedTier, requestSettings } from '../replies/model-settings';

/** Notice bodies the spec does not quote (ours, docs/errors.md). */
export const TREE_TEXT = {
  wait: 'Please wait for the current response to complete.',
  notAssistant: 'Alternatives can only be made for assistant replies of this conversation.',
  notUser: 'Only your own messages can be edited.',
  notFound: 'The message is no longer in this conversation.',
  cannotContinue: 'This reply cannot be continued.',
  noPrompt: 'There is no prompt before this reply to answer.',
  storage: 'The local database could not be written.',
} as const;

export interface LoadedTree {
  conversation: ConversationRow;
  tree: MessageTree;
}

/** Conversations with a branch operation under way (between its read and its append), per engine. */
class TreeLocks implements Room {
  readonly slugs = new Set<string>();
  dispose(): void {
    this.slugs.clear();
  }
}
const TREE_LOCKS: RoomKind<TreeLocks> = { name: 'branch locks', create: () => new TreeLocks() };

function lockSet(core: EngineCore): Set<string> {
  return core.room(TREE_LOCKS).slugs;
}

/** A reply is generating in the conversation, or another branch operation is under way. */
export function isBusy(core: EngineCore, slug: string): boolean {
  if (lockSet(core).has(slug)) return true;
  for (const r of liveReplies(core).live.values()) if (r.slug === slug) return true;
  return false;
}

/**
 * Runs `op` holding the conversation's branch lock, after the common checks: storage usable, nothing generating.
 * `title` is the notice a refusal raises. Any exception becomes that notice, with nothing appended by `op`
 * (its events are appended in one call, or not at all).
 */
export async function withTree(
  core: EngineCore,
  slug: string,
  title: string,
  op: (loaded: LoadedTree) => Promise<TreeResult>,
  busyNotice?: { title: string; text: string },
): Promise<TreeResult> {
  await core.whenStarted();
  if (!core.storageOk) return refuse(core, title, TREE_TEXT.storage);
  if (isBusy(core, slug)) return busyNotice ? refuse(core, busyNotice.title, busyNotice.text, 'orange') : refuse(core, title, TREE_TEXT.wait, 'orange');
  const lock = lockSet(core);
  lock.add(slug);
  try {
    const conversation = await core.db.conversations.where('slug').equals(slug).first();
    if (!conversation || conversation.deletedAt !== undefined) return refuse(core, CONVERSATION_NOTICE.targetMessageNotFound, TREE_TEXT.notFound);
    const rows = await core.db.messages.where('conversationSlug').equals(slug).toArray();
    rows.sort(byTime);
    return await op({ conversation, tree: buildTree(rows) });
  } catch (error) {
    console.error(`${title}:`, error);
    return refuse(core, title, error instanceof Error ? error.message : String(error));
  } finally {
    lock.delete(slug);
  }
}

/** Raises a notice and returns the failed result with its title. */
export function refuse(core: EngineCore, title: string, text: string, tone: 'red' | 'orange' = 'red'): TreeResult {
  core.notify({ title, text, tone, durationMs: DURATION.short });
  return { ok: false, error: title };
}

/** The chat messages a request sends: system prompt, then the path's finished messages that fit the context. */
export function contextMessages(core: EngineCore, conversation: ConversationRow, path: readonly MessageRow[], modelId: string, extra: readonly ChatMessage[] = []): ChatMessage[] {
  const info = core.models$.value.models.find((m) => m.id === modelId);
  const fitted = fitContext({
    system: [systemMessageFor(conversation, info?.name ?? modelId, Date.now())],
    history: [...requestMessages(path), ...extra],
    contextLength: info?.contextLength,
    maxTokens: core.preferences$.value.maxTokens,
  });
  return fitted.messages;
}

export interface ReplyPlan {
  conversation: ConversationRow;
  /** The assistant message the reply streams into (already in `events` or stored). */
  messageId: number;
  /** The prompt it answers (marked hasError if the reply fails). */
  userMessageId: number;
  model: string;
  requestId: string;
  messages: ChatMessage[];
  events: NewEvent[];
  continuation?: LiveReply['continuation'];
  onDropped?: LiveReply['onDropped'];
}

/** Appends the plan's events (one append) and starts its reply in the background. */
export async function appendAndReply(core: EngineCore, plan: ReplyPlan): Promise<void> {
  const slug = plan.conversation.slug;
  const reply: LiveReply = {
    messageId: plan.messageId,
    userMessageId: plan.userMessageId,
    slug,
    requestId: plan.requestId,
    parser: new ReplyStreamParser(),
    controller: new AbortController(),
    stoppedByUser: false,
    ...(plan.continuation ? { continuation: plan.continuation } : {}),
    ...(plan.onDropped ? { onDropped: plan.onDropped } : {}),
  };
  // Live before the append commits, so the view shows the reply as pending, never as an empty stream.
  liveReplies(core).live.set(reply.messageId, reply);
  try {
    await core.append(plan.events);
  } catch (error) {
    liveReplies(core).live.delete(reply.messageId);
    throw error;
  }
  const info = core.models$.value.models.find((m) => m.id === plan.model);
  const settings = requestSettings((await allModelSettings(core))[plan.model], info ?? {}, core.preferences$.value.maxTokens);
  const request: StreamGptRequest = {
    model: plan.model,
    messages: plan.messages,
    conversationUUID: plan.conversation.uuid,
    requestId: plan.requestId,
    ...settings,
    ...(info ? { recommendedTier: recommendedTier(info) } : {}),
  };
  liveReplies(core).startReply(reply, (signal) => gateway.streamReply(request, signal), plan.model);
}

export function newId(): string {
  return crypto.randomUUID();
}
