/**
 * Message actions on the tree (issue 6 item 12, spec 000 sections 4 and 8): Edit a prompt (the edited prompt and
 * its new reply become a new branch; the original stays reachable through the navigator), Delete, Retry a failed
 * message, and Duplicate the conversation up to a message.
 */
import type { MessageHandlers } from '../../../protocol/engine';
import { makeEvent, type NewEvent } from '../../../events/catalogue';
import type { ConversationRow, MessageLibraryRow, MessageRow } from '../../../events/model';
import type { MessageDeletedV1, MessageRestoredV1 } from '../../../events/tree-events';
import type { EngineCore } from '../../core';
import { firstChars, LATEST_MESSAGE_CHARS, promptText } from '../../../projections/projection';
import { alternativesOf, parentId, pathTo, pendingAssistant, subtree, type MessageTree } from '../../../shared/history';
import { makeSlug } from '../../infra/ids';
import { CONVERSATION_NOTICE, DURATION, MESSAGE_REQUIRED } from '../../../shared/messages';

// Our own wording (the spec names no notice for these); the same Undo as a deleted conversation's.
export const MESSAGE_DELETED = 'Message deleted';
export const UNDO_LABEL = 'Undo';
export const MESSAGE_RESTORE_FAILED = 'Unable to restore message';
export const MESSAGE_UNDO_EXPIRED = 'It can no longer be brought back.';
export const MESSAGE_CHANGED_SINCE = 'The conversation changed after the deletion.';
/** How long a deleted message can be brought back (the notice stays as long), as for a conversation. */
export const MESSAGE_UNDO_WINDOW_MS = DURATION.medium;
import { alternativeEvents, createAlternative } from '../branches/commands';
import { appendAndReply, contextMessages, newId, refuse, TREE_TEXT, withTree } from '../branches/tree';

/**
 * The events deleting `m`. A member of a group with others is a branch: it goes with everything below it; when it
 * was active its neighbour (the previous alternative, else the next) becomes active; when one member remains it
 * leaves the group. Any other message goes alone and its children move up to its parent, so the rest of the line
 * stays.
 */
export function deleteEvents(tree: MessageTree, m: MessageRow, now: number): NewEvent {
  const slug = m.conversationSlug;
  const members = m.alternativeGroup === null ? [] : (tree.groups.get(m.alternativeGroup) ?? []);
  if (members.length > 1) {
    const at = members.indexOf(m);
    const rest = members.filter((x) => x !== m);
    const neighbour = members[at - 1] ?? members[at + 1];
    const activated = m.isActiveBranch && rest.length > 1 && neighbour ? neighbour.id : null;
    const ungrouped = rest.length === 1 ? [(rest[0] as MessageRow).id] : [];
    return makeEvent(
      'message.deleted',
      { conversationSlug: slug, messageIds: subtree(tree, m.id).map((x) => x.id), reparented: [], activated, ungrouped, at: now },
      newId(),
      now,
    );
  }
  const parent = parentId(tree, m.id);
  const reparented = (tree.children.get(m.id) ?? []).map((c) => ({ messageId: c.id, parentMessageId: parent }));
  return makeEvent('message.deleted', { conversationSlug: slug, messageIds: [m.id], reparented, activated: null, ungrouped: [], at: now }, newId(), now);
}

/**
 * What brings a deletion back (Undo, issue 16): the deleted rows as they are in `tree` (the tree before the
 * deletion), the children that moved up back under the deleted message, the previous branch state of the members
 * the deletion activated or ungrouped, and the deleted messages' attachment links.
 */
export function restorePayload(tree: MessageTree, deleted: MessageDeletedV1, links: readonly MessageLibraryRow[], now: number): MessageRestoredV1 {
  const messages = deleted.messageIds.map((id) => tree.byId.get(id)).filter((m): m is MessageRow => m !== undefined);
  const from = deleted.messageIds[0] ?? null;
  const changed = [...(deleted.activated === null ? [] : [deleted.activated]), ...deleted.ungrouped];
  return {
    conversationSlug: deleted.conversationSlug,
    messages,
    reparented: deleted.reparented.map((r) => ({ messageId: r.messageId, parentMessageId: from })),
    branches: changed
      .map((id) => tree.byId.get(id))
      .filter((m): m is MessageRow => m !== undefined)
      .map((m) => ({ messageId: m.id, alternativeGroup: m.alternativeGroup, branchIndex: m.branchIndex, isActiveBranch: m.isActiveBranch })),
    libraryLinks: [...links],
    at: now,
  };
}

/** A short quote of a deleted message for its notice: the first words, on one line. */
function quote(m: MessageRow): string {
  const text = promptText(m.prompt).replace(/\s+/g, ' ').trim();
  if (text === '') return m.role === 'user' ? 'Your message' : 'A reply';
  return text.length > 60 ? `${firstChars(text, 60).trimEnd()}…` : text;
}

/** The new conversation and messages of a duplicate up to `upTo` (the path to it, as one line, with new ids). */
export function duplicatePlan(
  source: ConversationRow,
  path: readonly MessageRow[],
  links: readonly MessageLibraryRow[],
  ids: () => number,
  random: Uint8Array,
  now: number,
): { conversation: ConversationRow; messages: MessageRow[]; libraryLinks: MessageLibraryRow[] } {
  const name = `${source.name}${CONVERSATION_NOTICE.copySuffix}`;
  const kept = path.filter((m) => m.status !== 'pending' && m.status !== 'streaming');
  const last = kept.at(-1);
  const conversation: ConversationRow = {
    id: ids(),
    uuid: crypto.randomUUID(),
    slug: makeSlug(name, random),
    name,
    createdAt: now,
    updatedAt: now,
    latestMessage: last ? firstChars(promptText(last.prompt), LATEST_MESSAGE_CHARS) : '',
    isMediaOnly: source.isMediaOnly,
    ...(source.instructions !== undefined ? { instructions: source.instructions } : {}),
  };
  const newIds = new Map<number, number>();
  const messages: MessageRow[] = [];
  let previous: number | null = null;
  for (const m of kept) {
    const id = ids();
    newIds.set(m.id, id);
    // A copy is one line: the alternatives not on the path stay behind, so branch fields start afresh.
    const { requestId: _r, continuedFrom: _c, ...rest } = m;
    messages.push({ ...rest, id, conversationSlug: conversation.slug, parentMessageId: previous, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: now });
    previous = id;
  }
  const libraryLinks: MessageLibraryRow[] = [];
  for (const l of links) {
    const messageId = newIds.get(l.messageId);
    if (messageId !== undefined) libraryLinks.push({ id: ids(), messageId, libraryId: l.libraryId });
  }
  return { conversation, messages, libraryLinks };
}

export function messageCommands(core: EngineCore): MessageHandlers {
  /** Deletions that can still be undone, by id; kept for the notice's life, pruned as new ones come (no timer). */
  const undoable = new Map<string, { payload: MessageRestoredV1; deletedAt: number }>();
  const prune = (now: number) => {
    for (const [id, d] of undoable) if (now - d.deletedAt > MESSAGE_UNDO_WINDOW_MS) undoable.delete(id);
  };
  return {
    editMessage: (slug, messageId, prompt) =>
      withTree(core, slug, CONVERSATION_NOTICE.errorCreatingAlternative, async ({ conversation, tree }) => {
        const original = tree.byId.get(messageId);
        if (!original) return refuse(core, CONVERSATION_NOTICE.targetMessageNotFound, TREE_TEXT.notFound);
        if (original.role !== 'user') return refuse(core, CONVERSATION_NOTICE.errorCreatingAlternative, TREE_TEXT.notUser);
        const text = prompt.trim();
        if (text === '') return refuse(core, MESSAGE_REQUIRED, 'Type a message before saving.', 'orange');
        const now = Date.now();
        const parent = parentId(tree, messageId);
        const made = alternativeEvents(
          tree,
          original,
          (branch) => ({
            id: core.ids.next(now),
            conversationSlug: slug,
            timestamp: now,
            role: 'user',
            prompt: text,
            model: original.model,
            mode: 'chat',
            status: 'done',
            parentMessageId: parent,
            ...branch,
            updatedAt: now,
          }),
          now,
        );
        if (made === null) return refuse(core, CONVERSATION_NOTICE.alternativeLimitTitle, CONVERSATION_NOTICE.alternativeLimitText, 'orange');
        const user = made.added;
        // The reply goes to the model that answered the original prompt, else the prompt's own.
        const answered = (tree.children.get(messageId) ?? []).find((c) => c.role === 'assistant');
        const model = answered?.model ?? original.model;
        const assistant = pendingAssistant(core.ids.next(now), user, model, now + 1);
        const requestId = newId();
        const history = parent === null ? [] : pathTo(tree, parent);
        await appendAndReply(core, {
          conversation,
          messageId: assistant.id,
          userMessageId: user.id,
          model,
          requestId,
          messages: contextMessages(core, conversation, [...history, user], model),
          events: [
            ...made.events,
            makeEvent('message.added', { message: assistant }, newId(), now),
            makeEvent('reply.started', { messageId: assistant.id, conversationSlug: slug, model, requestId, at: now }, newId(), now),
          ],
        });
        return { ok: true, slug, messageId: user.id };
      }),

    deleteMessage: (slug, messageId) =>
      withTree(core, slug, CONVERSATION_NOTICE.unableToDeleteMessage, async ({ tree }) => {
        const m = tree.byId.get(messageId);
        if (!m) return refuse(core, CONVERSATION_NOTICE.unableToDeleteMessage, TREE_TEXT.notFound);
        const isBranch = alternativesOf(tree, m) !== null;
        const now = Date.now();
        const event = deleteEvents(tree, m, now);
        let payload: MessageRestoredV1;
        try {
          const deleted = event.payload as MessageDeletedV1;
          const links = await core.db.messageLibrary.where('messageId').anyOf(deleted.messageIds).toArray();
          payload = restorePayload(tree, deleted, links, now);
          await core.append([event]);
        } catch (error) {
          const title = isBranch ? CONVERSATION_NOTICE.errorDeletingBranch : CONVERSATION_NOTICE.unableToDeleteMessage;
          return refuse(core, title, error instanceof Error ? error.message : String(error));
        }
        prune(now);
        const deletionId = newId();
        undoable.set(deletionId, { payload, deletedAt: now });
        core.notify({
          title: MESSAGE_DELETED,
          text: quote(m),
          tone: 'blue',
          durationMs: MESSAGE_UNDO_WINDOW_MS,
          action: { label: UNDO_LABEL, kind: 'undoMessage', slug, deletionId },
        });
        return { ok: true, slug };
      }),

    restoreMessage: (slug, deletionId) =>
      withTree(core, slug, MESSAGE_RESTORE_FAILED, async ({ tree }) => {
        const now = Date.now();
        prune(now);
        const found = undoable.get(deletionId);
        if (!found || found.payload.conversationSlug !== slug) return refuse(core, MESSAGE_RESTORE_FAILED, MESSAGE_UNDO_EXPIRED, 'orange');
        // Undo puts back what was there; after a later change (a message sent, a branch switched) that picture
        // is gone, so it is refused rather than guessed at.
        if (tree.ordered.some((m) => m.updatedAt > found.deletedAt) || found.payload.messages.some((m) => tree.byId.get(m.id) !== undefined)) {
          undoable.delete(deletionId);
          return refuse(core, MESSAGE_RESTORE_FAILED, MESSAGE_CHANGED_SINCE, 'orange');
        }
        await core.append([makeEvent('message.restored', { ...found.payload, at: now }, newId(), now)]);
        undoable.delete(deletionId);
        for (const n of core.notices$.value) {
          if (n.action?.kind === 'undoMessage' && n.action.deletionId === deletionId) void core.dismissNotice(n.id);
        }
        return { ok: true, slug };
      }),

    retryMessage: (slug, messageId) =>
      withTree(core, slug, CONVERSATION_NOTICE.errorCreatingAlternative, async (loaded) => {
        const { conversation, tree } = loaded;
        const m = tree.byId.get(messageId);
        if (!m) return refuse(core, CONVERSATION_NOTICE.targetMessageNotFound, TREE_TEXT.notFound);
        const now = Date.now();
        // A failed or partial reply: a new alternative of it.
        if (m.role === 'assistant') return createAlternative(core, loaded, m);
        if (m.role !== 'user') return refuse(core, CONVERSATION_NOTICE.errorCreatingAlternative, TREE_TEXT.notAssistant);
        const retried: NewEvent[] = m.hasError ? [makeEvent('message.retried', { conversationSlug: slug, messageId, at: now }, newId(), now)] : [];
        // A prompt whose reply was kept (partial): a new alternative of that reply, clearing the prompt's mark.
        const kept = (tree.children.get(messageId) ?? []).filter((c) => c.role === 'assistant');
        const shown = kept.find((c) => c.isActiveBranch) ?? kept.at(-1);
        if (shown) return createAlternative(core, loaded, shown, retried);
        // A prompt whose reply was deleted: a new reply.
        const assistant: MessageRow = {
          id: core.ids.next(now),
          conversationSlug: slug,
          timestamp: now,
          role: 'assistant',
          prompt: '',
          model: m.model,
          mode: 'chat',
          status: 'pending',
          parentMessageId: m.id,
          alternativeGroup: null,
          branchIndex: 0,
          isActiveBranch: true,
          branchDepth: m.branchDepth,
          updatedAt: now,
        };
        const requestId = newId();
        await appendAndReply(core, {
          conversation,
          messageId: assistant.id,
          userMessageId: m.id,
          model: m.model,
          requestId,
          // The prompt is sent although it is still marked failed in `tree` (the mark clears in this append).
          messages: contextMessages(core, conversation, pathTo(tree, m.id).map((x) => (x.id === m.id ? { ...x, hasError: false, status: 'done' as const } : x)), m.model),
          events: [
            ...retried,
            makeEvent('message.added', { message: assistant }, newId(), now),
            makeEvent('reply.started', { messageId: assistant.id, conversationSlug: slug, model: m.model, requestId, at: now }, newId(), now),
          ],
        });
        return { ok: true, slug, messageId: assistant.id };
      }),

    duplicateConversation: (slug, messageId) =>
      withTree(
        core,
        slug,
        CONVERSATION_NOTICE.errorDuplicating,
        async ({ conversation, tree }) => {
          const path = pathTo(tree, messageId);
          if (path.length === 0) return refuse(core, CONVERSATION_NOTICE.targetMessageNotFound, TREE_TEXT.notFound);
          const ids = path.map((m) => m.id);
          const links = await core.db.messageLibrary.where('messageId').anyOf(ids).toArray();
          const now = Date.now();
          const plan = duplicatePlan(conversation, path, links, () => core.ids.next(now), crypto.getRandomValues(new Uint8Array(7)), now);
          await core.append([makeEvent('conversation.duplicated', { sourceSlug: slug, upToMessageId: messageId, ...plan, at: now }, newId(), now)]);
          core.notify({ title: CONVERSATION_NOTICE.duplicated, text: plan.conversation.name, tone: 'green', durationMs: DURATION.short });
          return { ok: true, slug: plan.conversation.slug };
        },
        { title: CONVERSATION_NOTICE.actionUnavailableTitle, text: CONVERSATION_NOTICE.actionUnavailableText },
      ),
  };
}
