/**
 * Chat commands (spec 000 section 4, submit flow): send a message and stop a reply.
 */
import type { ChatMessage, StreamGptRequest } from '../../protocol/api';
import type { ChatHandlers, SendMessageInput, SendMessageResult } from '../../protocol/engine';
import { makeEvent, type NewEvent } from '../../events/catalogue';
import type { MessageRow } from '../../events/model';
import type { EngineCore } from '../core';
import { classifyModelError } from '../services/errors';
import { ReplyStreamParser } from '../services/stream-parser';
import { gateway } from '../services/gateway';
import { defaultName, makeSlug } from '../services/ids';
import { MESSAGE_REQUIRED } from '../services/messages';
import { DEFAULT_MAX_TOKENS, type LiveReply } from '../services/reply-runner';
import { byTime } from '../queries/conversations';

export const REPLY_IN_PROGRESS = 'Please wait for the current response to complete.';

export function chatCommands(core: EngineCore): ChatHandlers {
  return {
    async sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
      await core.whenStarted();
      if (!core.storageOk) return { ok: false, error: 'Local storage unavailable', notified: true };
      const prompt = input.prompt.trim();
      if (prompt === '') return { ok: false, error: MESSAGE_REQUIRED };
      if (core.models$.value.models.length === 0) await core.loadModels();
      // A prompt sent before the tab had the catalogue (or with no choice made) goes to the default model.
      const wanted = input.model || core.models$.value.defaultModel;
      const model = core.models$.value.models.find((m) => m.id === wanted);
      if (!model) return { ok: false, error: `Unknown model: ${input.model}` };
      if (core.session$.value.session === null) await core.refreshSession();
      if (!model.free && !core.session$.value.canUsePaidModels) {
        core.notify(classifyModelError({ status: 402, code: 'INSUFFICIENT_BALANCE', body: { requiredBalance: '0.00001' } }));
        return { ok: false, error: 'Insufficient balance', notified: true };
      }

      const now = Date.now();
      const events: NewEvent[] = [];
      let conversation = input.slug ? await core.db.conversations.where('slug').equals(input.slug).first() : undefined;
      if (input.slug && !conversation) return { ok: false, error: 'Conversation not found' };
      if (conversation && [...core.live.values()].some((r) => r.slug === conversation?.slug)) {
        return { ok: false, error: REPLY_IN_PROGRESS };
      }
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
        history = await core.db.messages.where('conversationSlug').equals(conversation.slug).toArray();
        history.sort(byTime);
      }
      const slug = conversation.slug;
      const branch = { alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: now };
      const user: MessageRow = {
        id: core.ids.next(now),
        conversationSlug: slug,
        timestamp: now,
        role: 'user',
        prompt,
        model: model.id,
        mode: 'chat',
        status: 'done',
        parentMessageId: history.at(-1)?.id ?? null,
        ...branch,
      };
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
        updatedAt: now + 1,
      };
      const requestId = crypto.randomUUID();
      events.push(
        makeEvent('message.added', { message: user }, crypto.randomUUID(), now),
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

      const request: StreamGptRequest = {
        model: model.id,
        messages: [...history, user].filter((m) => m.status === 'done' && !m.hasError).map(toChatMessage),
        conversationUUID: conversation.uuid,
        requestId,
        maxTokens: DEFAULT_MAX_TOKENS,
      };
      core.startReply(reply, (signal) => gateway.streamReply(request, signal));
      return { ok: true, slug, userMessageId: user.id };
    },

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

function toChatMessage(m: MessageRow): ChatMessage {
  return { role: m.role, content: m.prompt };
}
