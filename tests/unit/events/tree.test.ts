/**
 * The message tree, pure: the history service's tree and paths (explicit parents, pre-v41 rows with no parent,
 * groups, multi-model siblings, damaged data), canContinue's threshold, and the tree events' validation and
 * projection (fold).
 */
import { describe, expect, it } from 'vitest';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import type { MessageRow } from '../../../src/events/model';
import { checkPayload } from '../../../src/events/validate';
import { fold } from '../../../src/projections/fold';
import { activePath, alternativesOf, buildTree, canContinue, pathTo, requestMessages, subtree } from '../../../src/shared/history';
import { deleteEvents, duplicatePlan } from '../../../src/worker/rooms/messages/commands';

const T0 = 1_700_000_000_000;
function msg(id: number, fields: Partial<MessageRow> = {}): MessageRow {
  return {
    id,
    conversationSlug: 'c',
    timestamp: T0 + id,
    role: id % 2 === 1 ? 'user' : 'assistant',
    prompt: `m${id}`,
    model: 'm',
    status: 'done',
    parentMessageId: id === 1 ? null : id - 1,
    alternativeGroup: null,
    branchIndex: 0,
    isActiveBranch: true,
    branchDepth: 0,
    updatedAt: T0 + id,
    ...fields,
  };
}
const ids = (rows: readonly MessageRow[]) => rows.map((m) => m.id);

describe('history: the tree and its paths', () => {
  it('follows explicit parents, and the active member of each group with its own continuation', () => {
    // 1 -> {2 (branch 0, inactive), 4 (branch 1, active)}; 2 -> 3; 4 -> 5 -> 6
    const rows = [
      msg(1),
      msg(2, { alternativeGroup: 'g', branchIndex: 0, isActiveBranch: false }),
      msg(3, { parentMessageId: 2 }),
      msg(4, { parentMessageId: 1, alternativeGroup: 'g', branchIndex: 1 }),
      msg(5, { parentMessageId: 4 }),
      msg(6, { parentMessageId: 5 }),
    ];
    const tree = buildTree(rows);
    expect(ids(activePath(tree))).toEqual([1, 4, 5, 6]);
    expect(alternativesOf(tree, rows[3] as MessageRow)).toEqual({ index: 2, count: 2 });
    expect(alternativesOf(tree, rows[0] as MessageRow)).toBeNull();
    expect(ids(pathTo(tree, 3))).toEqual([1, 2, 3]);
    expect(ids(subtree(tree, 4)).sort()).toEqual([4, 5, 6]);
    const switched = rows.map((m) => (m.id === 2 ? { ...m, isActiveBranch: true } : m.id === 4 ? { ...m, isActiveBranch: false } : m));
    expect(ids(activePath(buildTree(switched)))).toEqual([1, 2, 3]);
  });

  it('chains pre-v41 rows (no parent) in time order, and their alternatives hang beside them', () => {
    const legacy = [1, 2, 3, 4].map((id) => msg(id, { parentMessageId: null }));
    expect(ids(activePath(buildTree(legacy)))).toEqual([1, 2, 3, 4]);
    // An alternative of the first message (no parent either) is its sibling, not its child.
    const edited = [msg(1, { parentMessageId: null, alternativeGroup: 'g', isActiveBranch: false }), ...legacy.slice(1), msg(9, { parentMessageId: null, alternativeGroup: 'g', branchIndex: 1, role: 'user' })];
    expect(ids(activePath(buildTree(edited)))).toEqual([9]);
  });

  it('shows every active sibling (one reply per model) and goes on from the last that has children', () => {
    const rows = [msg(1), msg(2), msg(4, { parentMessageId: 1 }), msg(5, { parentMessageId: 4, role: 'user' }), msg(6, { parentMessageId: 5 })];
    expect(ids(activePath(buildTree(rows)))).toEqual([1, 2, 4, 5, 6]);
  });

  it('falls back to the newest member when a group has no active one, and stops on a cycle', () => {
    const rows = [msg(1), msg(2, { alternativeGroup: 'g', isActiveBranch: false }), msg(4, { parentMessageId: 1, alternativeGroup: 'g', branchIndex: 1, isActiveBranch: false })];
    expect(ids(activePath(buildTree(rows)))).toEqual([1, 4]);
    const cyclic = [msg(1), msg(2, { parentMessageId: 3 }), msg(3, { parentMessageId: 2 })];
    expect(ids(activePath(buildTree(cyclic)))).toEqual([1]);
  });

  it('sends only finished messages as history', () => {
    const rows = [msg(1), msg(2, { status: 'error', interrupted: true }), msg(3, { hasError: true }), msg(4, { isPartial: true })];
    expect(requestMessages(rows)).toEqual([
      { role: 'user', content: 'm1' },
      { role: 'assistant', content: 'm4' },
    ]);
  });

  it('builds the path of 10,000 messages in one pass', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => msg(i + 1));
    expect(activePath(buildTree(rows))).toHaveLength(10_000);
  });
});

describe('Continue threshold (spec 000 section 4: within 10% of max tokens, default 8192)', () => {
  it.each([
    [7372, 8192, false],
    [7373, 8192, true],
    [8192, 8192, true],
    [89, 100, false],
    [90, 100, true],
  ])('%i output tokens of %i max: %s', (outputTokens, maxTokens, expected) => {
    expect(canContinue(msg(2, { outputTokens }), maxTokens)).toBe(expected);
  });
  it('never for a prompt, an unfinished or a failed reply, or one without a token count', () => {
    expect(canContinue(msg(1, { outputTokens: 8192 }), 8192)).toBe(false);
    expect(canContinue(msg(2, { outputTokens: 8192, status: 'streaming' }), 8192)).toBe(false);
    expect(canContinue(msg(2, { outputTokens: 8192, hasError: true }), 8192)).toBe(false);
    expect(canContinue(msg(2), 8192)).toBe(false);
  });
});

describe('tree events: validation and projection', () => {
  const conversation = { id: 100, uuid: 'u', slug: 'c', name: 'C', createdAt: T0, updatedAt: T0, latestMessage: '', isMediaOnly: false };
  const base: NewEvent[] = [
    makeEvent('conversation.created', { conversation }, 'e0', T0),
    ...[msg(1), msg(2), msg(3), msg(4)].map((m, i) => makeEvent('message.added', { message: m }, `e${i + 1}`, T0)),
  ];

  it('validates each new payload and names a bad field', () => {
    expect(checkPayload('message.branched', { conversationSlug: 'c', messageId: 2, alternativeGroup: 'g', at: T0 })).toBeNull();
    expect(checkPayload('branch.activated', { conversationSlug: 'c', alternativeGroup: 'g', messageId: '2', at: T0 })).toMatch(/messageId/);
    expect(checkPayload('message.deleted', { conversationSlug: 'c', messageIds: [1], reparented: [{ messageId: 2, parentMessageId: null }], activated: null, ungrouped: [], at: T0 })).toBeNull();
    expect(checkPayload('message.deleted', { conversationSlug: 'c', messageIds: ['x'], reparented: [], activated: null, ungrouped: [], at: T0 })).toMatch(/messageIds/);
    expect(checkPayload('reply.continued', { messageId: 2, conversationSlug: 'c', model: 'm', requestId: 'r', text: 'a', thinking: '', at: T0 })).toBeNull();
    expect(checkPayload('message.retried', { conversationSlug: 'c', messageId: 1, at: T0 })).toBeNull();
    const dup = { sourceSlug: 'c', upToMessageId: 2, conversation, messages: [msg(1)], libraryLinks: [{ id: 1, messageId: 1, libraryId: 3 }], at: T0 };
    expect(checkPayload('conversation.duplicated', dup)).toBeNull();
    expect(checkPayload('conversation.duplicated', { ...dup, messages: [{ ...msg(1), branchIndex: 'x' }] })).toMatch(/messages\[0\]\.branchIndex/);
    const restored = { conversationSlug: 'c', messages: [msg(2)], reparented: [{ messageId: 3, parentMessageId: 2 }], branches: [{ messageId: 4, alternativeGroup: null, branchIndex: 0, isActiveBranch: true }], libraryLinks: [], at: T0 };
    expect(checkPayload('message.restored', restored)).toBeNull();
    expect(checkPayload('message.restored', { ...restored, branches: [{ messageId: 4, alternativeGroup: 1, branchIndex: 0, isActiveBranch: true }] })).toMatch(/branches/);
    expect(checkPayload('message.restored', { ...restored, messages: [{ ...msg(2), conversationSlug: 'other' }] })).toMatch(/messages\[0\]\.conversationSlug/);
  });

  it('branches, activates, deletes and ungroups, as the commands plan it', () => {
    const alt = msg(5, { parentMessageId: 1, alternativeGroup: 'g', branchIndex: 1 });
    const events: NewEvent[] = [
      ...base,
      makeEvent('message.branched', { conversationSlug: 'c', messageId: 2, alternativeGroup: 'g', at: T0 + 10 }, 'b1', T0 + 10),
      makeEvent('message.added', { message: alt }, 'b2', T0 + 10),
      makeEvent('branch.activated', { conversationSlug: 'c', alternativeGroup: 'g', messageId: 5, at: T0 + 10 }, 'b3', T0 + 10),
    ];
    const store = fold(events);
    const rows = [...store.map('messages').values()].sort((a, b) => a.timestamp - b.timestamp);
    expect(store.get('messages', 2)).toMatchObject({ alternativeGroup: 'g', branchIndex: 0, isActiveBranch: false });
    const tree = buildTree(rows);
    expect(ids(activePath(tree))).toEqual([1, 5]);
    // Delete the active branch: the other (the last one) becomes active and leaves the group; 2's subtree stays.
    const del = deleteEvents(tree, store.get('messages', 5) as MessageRow, T0 + 20);
    expect(del.payload).toMatchObject({ messageIds: [5], activated: null, ungrouped: [2] });
    const after = fold([...events, del]);
    expect(after.get('messages', 5)).toBeUndefined();
    expect(after.get('messages', 2)).toMatchObject({ alternativeGroup: null, isActiveBranch: true });
    expect(ids(activePath(buildTree([...after.map('messages').values()].sort((a, b) => a.timestamp - b.timestamp))))).toEqual([1, 2, 3, 4]);
  });

  it('deleting a message of a line moves its children up', () => {
    const store = fold(base);
    const tree = buildTree([...store.map('messages').values()]);
    const del = deleteEvents(tree, store.get('messages', 2) as MessageRow, T0 + 5);
    expect(del.payload).toMatchObject({ messageIds: [2], reparented: [{ messageId: 3, parentMessageId: 1 }] });
    const after = fold([...base, del]);
    expect(ids(activePath(buildTree([...after.map('messages').values()])))).toEqual([1, 3, 4]);
  });

  it("a duplicate copies the path up to a message as one line, with new ids, ' (Copy)' and its attachment links", () => {
    let next = 1000;
    const path = [msg(1), msg(2, { alternativeGroup: 'g', branchIndex: 1, requestId: 'r-1' })];
    const plan = duplicatePlan({ ...conversation, instructions: 'Be brief' }, path, [{ id: 7, messageId: 2, libraryId: 42 }, { id: 8, messageId: 99, libraryId: 43 }], () => ++next, new Uint8Array(7), T0 + 50);
    expect(plan.conversation).toMatchObject({ id: 1001, name: 'C (Copy)', instructions: 'Be brief', latestMessage: 'm2' });
    expect(plan.conversation.slug).toMatch(/^c-copy-[a-z0-9]{7}$/);
    expect(plan.messages.map((m) => [m.id, m.parentMessageId, m.alternativeGroup, m.conversationSlug])).toEqual([
      [1002, null, null, plan.conversation.slug],
      [1003, 1002, null, plan.conversation.slug],
    ]);
    expect(plan.messages[1]?.requestId).toBeUndefined();
    expect(plan.libraryLinks).toEqual([{ id: 1004, messageId: 1003, libraryId: 42 }]);
    const store = fold([...base, makeEvent('conversation.duplicated', { sourceSlug: 'c', upToMessageId: 2, ...plan, at: T0 + 50 }, 'd1', T0 + 50)]);
    expect(store.get('conversations', 1001)?.name).toBe('C (Copy)');
    expect(store.get('messages', 1003)?.prompt).toBe('m2');
    expect(store.get('messages', 2)?.conversationSlug).toBe('c');
  });

  it('a continued reply streams again, remembering the text it had', () => {
    const store = fold([...base, makeEvent('reply.continued', { messageId: 2, conversationSlug: 'c', model: 'm', requestId: 'r-2', text: 'm2', thinking: '', at: T0 + 9 }, 'c1', T0 + 9)]);
    expect(store.get('messages', 2)).toMatchObject({ status: 'streaming', requestId: 'r-2', continuedFrom: { text: 'm2', thinking: '' } });
  });
});
