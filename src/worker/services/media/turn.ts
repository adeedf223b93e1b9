/**
 * Steps 4 to 6 of the submit flow (spec 000 section 4) for an image or video request: create the conversation if
 * new, add the user message, create the pending assistant message. The events are returned, not appended: the
 * caller appends them at once with what else its step 7 needs.
 */
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { ConversationRow, ImageRef, MessageRow, Mode, ModelSettings } from '../../../events/model';
import type { EngineCore } from '../../core';
import { activePath, buildTree, byTime } from '../history';
import { defaultName, makeSlug } from '../ids';

export interface MediaTurn {
  conversation: ConversationRow;
  user: MessageRow;
  assistant: MessageRow;
  events: NewEvent[];
}

export async function openMediaTurn(
  core: EngineCore,
  o: { slug: string | null; prompt: string; model: string; mode: Mode; settings: ModelSettings; inputs: ImageRef[]; now: number },
): Promise<MediaTurn | { error: string }> {
  const { now } = o;
  let conversation = o.slug ? await core.db.conversations.where('slug').equals(o.slug).first() : undefined;
  if (o.slug && !conversation) return { error: 'Conversation not found' };
  const events: NewEvent[] = [];
  let last: MessageRow | undefined;
  if (!conversation) {
    conversation = {
      id: core.ids.next(now),
      uuid: crypto.randomUUID(),
      slug: makeSlug(o.prompt, crypto.getRandomValues(new Uint8Array(7))),
      name: defaultName(o.prompt),
      createdAt: now,
      updatedAt: now,
      latestMessage: '',
      // A conversation begun in image or video mode holds media only (spec 000 section 3, isMediaOnly).
      isMediaOnly: true,
    };
    events.push(makeEvent('conversation.created', { conversation }, crypto.randomUUID(), now));
  } else {
    const rows = await core.db.messages.where('conversationSlug').equals(conversation.slug).toArray();
    rows.sort(byTime);
    last = activePath(buildTree(rows)).at(-1);
  }
  const branch = { alternativeGroup: null, branchIndex: 0, isActiveBranch: true };
  const user: MessageRow = {
    id: core.ids.next(now),
    conversationSlug: conversation.slug,
    timestamp: now,
    role: 'user',
    prompt: o.prompt,
    model: o.model,
    mode: o.mode,
    status: 'done',
    parentMessageId: last?.id ?? null,
    ...branch,
    branchDepth: last ? last.branchDepth : 0,
    updatedAt: now,
    imageSettings: o.settings,
  };
  if (o.inputs.length > 0) user.images = o.inputs;
  const assistant: MessageRow = {
    id: core.ids.next(now),
    conversationSlug: conversation.slug,
    timestamp: now + 1,
    role: 'assistant',
    prompt: '',
    model: o.model,
    mode: o.mode,
    status: 'pending',
    parentMessageId: user.id,
    ...branch,
    branchDepth: user.branchDepth,
    updatedAt: now + 1,
    imageSettings: o.settings,
  };
  events.push(makeEvent('message.added', { message: user }, crypto.randomUUID(), now), makeEvent('message.added', { message: assistant }, crypto.randomUUID(), now));
  return { conversation, user, assistant, events };
}
