import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../../src/events/model';
import { activePath, buildTree, byTime, tailPath } from '../../../src/shared/history';

function row(id: number, parent: number | null, extra: Partial<MessageRow> = {}): MessageRow {
  return { id, conversationSlug: 's', timestamp: id, role: id % 2 ? 'user' : 'assistant', prompt: `m${id}`, model: 'm', status: 'done', parentMessageId: parent, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: id, ...extra };
}

describe('tailPath (a long conversation shows its newest messages first)', () => {
  it('is the end of the active path, from the newest message up through the parents it has', () => {
    const rows = Array.from({ length: 50 }, (_, i) => row(i + 1, i === 0 ? null : i));
    const whole = activePath(buildTree(rows));
    const tail = rows.slice(30).reverse(); // as read: newest first
    expect(tailPath(tail)).toEqual(whole.slice(30));
  });

  it("keeps a multi-model request's replies side by side, and follows the branch the newest message is on", () => {
    const rows = [row(1, null), row(2, 1, { multiModelRequest: 'r' }), row(4, 1, { multiModelRequest: 'r' }), row(5, 4), row(6, 5, { alternativeGroup: 'g', branchIndex: 0, isActiveBranch: false }), row(8, 5, { alternativeGroup: 'g', branchIndex: 1 })].sort(byTime);
    expect(tailPath(rows)?.map((m) => m.id)).toEqual(activePath(buildTree(rows)).map((m) => m.id));
    expect(tailPath(rows)?.map((m) => m.id)).toEqual([1, 2, 4, 5, 8]);
  });

  it('makes no guess when the newest message is on an inactive branch (the whole conversation is loaded instead)', () => {
    const rows = [row(1, null), row(2, 1, { alternativeGroup: 'g', branchIndex: 0 }), row(3, 2), row(4, 1, { alternativeGroup: 'g', branchIndex: 1, isActiveBranch: false }), row(5, 4)];
    expect(tailPath(rows)).toBeNull();
    expect(tailPath([])).toEqual([]);
  });
});
