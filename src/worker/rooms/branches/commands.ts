/**
 * Alternatives and branches (spec 000 section 4) and Continue: Regenerate makes a new alternative reply to the
 * same prompt, the navigator switches between a group's alternatives (everything after a reply follows its
 * active branch), and Continue extends a reply that stopped near max tokens.
 *
 * Rules: at most 10 alternatives per group; the first alternative turns the original into branch 0, not active;
 * the new one is active once stored (the same append); alternatives only for assistant messages of the conversation
 * named; one branch switch or generation at a time per conversation (./tree.ts withTree).
 */
import type { BranchHandlers, TreeResult } from '../../../protocol/engine';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { MessageRow } from '../../../events/model';
import type { EngineCore } from '../../core';
import { canContinue, parentId, pathTo, type MessageTree } from '../../../shared/history';

export { canContinue, CONTINUE_THRESHOLD } from '../../../shared/history';
import { CONVERSATION_NOTICE, MODEL_ERROR } from '../../../shared/messages';
import { appendAndReply, contextMessages, newId, refuse, TREE_TEXT, withTree, type LoadedTree } from './tree';

/** Spec 000 section 4 / 9: at most 10 alternatives per group. */
export const MAX_ALTERNATIVES = 10;

/** The group a message belongs to, or will belong to once its first alternative is made, and its members. */
export function groupOf(tree: MessageTree, m: MessageRow): { group: string; members: MessageRow[]; isNew: boolean } {
  if (m.alternativeGroup !== null) {
    const members = tree.groups.get(m.alternativeGroup) ?? [m];
    if (members.length > 1) return { group: m.alternativeGroup, members, isNew: false };
    // A group of one (its other members were lost): reuse the name, the member becomes branch 0 again.
    return { group: m.alternativeGroup, members, isNew: true };
  }
  return { group: newId(), members: [m], isNew: true };
}

/**
 * Events that add `added` as a new, active member of `original`'s group: the original becomes branch 0 (not
 * active) when this is the first alternative. Returns null when the group is full.
 */
export function alternativeEvents(tree: MessageTree, original: MessageRow, build: (branch: Pick<MessageRow, 'alternativeGroup' | 'branchIndex' | 'isActiveBranch' | 'branchDepth'>) => MessageRow, now: number): { events: NewEvent[]; added: MessageRow; group: string; previous: MessageRow } | null {
  const { group, members, isNew } = groupOf(tree, original);
  if (members.length >= MAX_ALTERNATIVES) return null;
  const slug = original.conversationSlug;
  const previous = members.find((m) => m.isActiveBranch) ?? original;
  const branchIndex = Math.max(...members.map((m) => (isNew ? 0 : m.branchIndex))) + 1;
  const added = build({ alternativeGroup: group, branchIndex, isActiveBranch: true, branchDepth: original.branchDepth });
  const events: NewEvent[] = [];
  if (isNew) events.push(makeEvent('message.branched', { conversationSlug: slug, messageId: original.id, alternativeGroup: group, at: now }, newId(), now));
  events.push(
    makeEvent('message.added', { message: added }, newId(), now),
    makeEvent('branch.activated', { conversationSlug: slug, alternativeGroup: group, messageId: added.id, at: now }, newId(), now),
  );
  return { events, added, group, previous };
}

/**
 * A new alternative reply to the prompt `original` answers. `extra` events go first in the same append (Retry
 * clears the prompt's error mark with them). When the new reply fails and is deleted, the previously active
 * member is active again (or, for a first alternative, the original leaves the group): nothing half-written.
 */
export async function createAlternative(core: EngineCore, { conversation, tree }: LoadedTree, original: MessageRow, extra: NewEvent[] = []): Promise<TreeResult> {
  const title = CONVERSATION_NOTICE.errorCreatingAlternative;
  if (original.role !== 'assistant') return refuse(core, title, TREE_TEXT.notAssistant);
  const promptId = parentId(tree, original.id);
  const prompt = promptId === null ? undefined : tree.byId.get(promptId);
  if (!prompt || prompt.role !== 'user') return refuse(core, title, TREE_TEXT.noPrompt);
  const now = Date.now();
  const made = alternativeEvents(
    tree,
    original,
    (branch) => ({
      id: core.ids.next(now),
      conversationSlug: conversation.slug,
      timestamp: now,
      role: 'assistant',
      prompt: '',
      model: original.model,
      mode: 'chat',
      status: 'pending',
      parentMessageId: prompt.id,
      ...branch,
      updatedAt: now,
    }),
    now,
  );
  if (made === null) return refuse(core, CONVERSATION_NOTICE.alternativeLimitTitle, CONVERSATION_NOTICE.alternativeLimitText, 'orange');
  const requestId = newId();
  const { added, group, previous } = made;
  const firstAlternative = original.alternativeGroup === null || (tree.groups.get(group)?.length ?? 1) < 2;
  await appendAndReply(core, {
    conversation,
    messageId: added.id,
    userMessageId: prompt.id,
    model: added.model,
    requestId,
    messages: contextMessages(core, conversation, pathTo(tree, prompt.id), added.model),
    events: [...extra, ...made.events, makeEvent('reply.started', { messageId: added.id, conversationSlug: conversation.slug, model: added.model, requestId, at: now }, newId(), now)],
    onDropped: () => {
      const at = Date.now();
      return [
        makeEvent(
          'message.deleted',
          { conversationSlug: conversation.slug, messageIds: [added.id], reparented: [], activated: firstAlternative ? null : previous.id, ungrouped: firstAlternative ? [original.id] : [], at },
          newId(),
          at,
        ),
      ];
    },
  });
  return { ok: true, slug: conversation.slug, messageId: added.id };
}

export function branchCommands(core: EngineCore): BranchHandlers {
  return {
    regenerate: (slug, messageId) =>
      withTree(core, slug, CONVERSATION_NOTICE.errorCreatingAlternative, async (loaded) => {
        const original = loaded.tree.byId.get(messageId);
        if (!original) return refuse(core, CONVERSATION_NOTICE.targetMessageNotFound, TREE_TEXT.notFound);
        return createAlternative(core, loaded, original);
      }),

    switchBranch: (slug, messageId, direction) =>
      withTree(core, slug, CONVERSATION_NOTICE.errorSwitchingBranch, async ({ tree }) => {
        const m = tree.byId.get(messageId);
        if (!m) return refuse(core, CONVERSATION_NOTICE.targetMessageNotFound, TREE_TEXT.notFound);
        const members = m.alternativeGroup === null ? [] : (tree.groups.get(m.alternativeGroup) ?? []);
        const at = members.indexOf(m);
        const target = members[direction === 'next' ? at + 1 : at - 1];
        if (members.length < 2 || target === undefined || m.alternativeGroup === null) {
          return refuse(core, CONVERSATION_NOTICE.errorSwitchingBranch, `There is no ${direction} alternative.`);
        }
        const now = Date.now();
        await core.append([makeEvent('branch.activated', { conversationSlug: slug, alternativeGroup: m.alternativeGroup, messageId: target.id, at: now }, newId(), now)]);
        return { ok: true, slug, messageId: target.id };
      }),

    continueReply: (slug, messageId) =>
      withTree(core, slug, MODEL_ERROR.sendErrorTitle, async ({ conversation, tree }) => {
        const m = tree.byId.get(messageId);
        if (!m) return refuse(core, CONVERSATION_NOTICE.targetMessageNotFound, TREE_TEXT.notFound);
        if (!canContinue(m, core.preferences$.value.maxTokens)) return refuse(core, MODEL_ERROR.sendErrorTitle, TREE_TEXT.cannotContinue);
        const path = pathTo(tree, messageId);
        const text = typeof m.prompt === 'string' ? m.prompt : m.prompt.map((p) => (p.type === 'text' ? p.text : '')).join('');
        const thinking = m.thinking ?? '';
        const requestId = newId();
        const now = Date.now();
        const promptId = parentId(tree, messageId);
        await appendAndReply(core, {
          conversation,
          messageId,
          userMessageId: promptId ?? messageId,
          model: m.model,
          requestId,
          // The history up to the reply, then the reply so far as the last assistant message: the model goes on.
          messages: contextMessages(core, conversation, path.slice(0, -1), m.model, [{ role: 'assistant', content: text }]),
          events: [makeEvent('reply.continued', { messageId, conversationSlug: slug, model: m.model, requestId, text, thinking, at: now }, newId(), now)],
          continuation: { text, thinking, cost: m.cost ?? 0, outputTokens: m.outputTokens ?? 0 },
        });
        return { ok: true, slug, messageId };
      }),
  };
}
