import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../../src/events/model';
import { branchView, switchChoice } from '../../../src/ui/components/read-only';

const row = (id: number, over: Partial<MessageRow> = {}): MessageRow =>
  ({ id, conversationSlug: 's', timestamp: id, role: id % 2 === 1 ? 'user' : 'assistant', prompt: `m${id}`, model: 'm', status: 'done', parentMessageId: id === 1 ? null : id - 1, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: id, ...over }) as MessageRow;

// 1 -> 2 (first answer, group g) -> 3 ; 1 -> 4 (second answer, active) -> 5 (with an image)
const rows: MessageRow[] = [
  row(1),
  row(2, { alternativeGroup: 'g', branchIndex: 0, isActiveBranch: false }),
  row(3, { parentMessageId: 2 }),
  row(4, { parentMessageId: 1, alternativeGroup: 'g', branchIndex: 1 }),
  row(5, { parentMessageId: 4, images: [{ fileId: 1, thumbId: 1, mimeType: 'image/png', width: 1, height: 1 }] as MessageRow['images'] }),
];

describe('branchView: a read-only conversation with its branches', () => {
  it("shows the log's active path, with each message's place among its alternatives, media left out", () => {
    const v = branchView(rows, new Map());
    expect(v.messages.map((m) => m.id)).toEqual([1, 4, 5]);
    expect(v.messages[1]?.alternatives).toEqual({ index: 2, count: 2 });
    expect(v.messages.map((m) => m.text)).toEqual(['m1', 'm4', 'm5']);
    expect(v.messages[2]?.images).toBeUndefined();
    expect(v.mediaLeftOut).toBe(true);
  });

  it('switches branches in the view only: previous shows the other answer and what followed it', () => {
    const v = branchView(rows, new Map());
    const back = switchChoice(v.tree, new Map(), 4, 'previous');
    const w = branchView(rows, back);
    expect(w.messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(w.messages[1]?.alternatives).toEqual({ index: 1, count: 2 });
    expect(w.mediaLeftOut).toBe(false);
    // At either end nothing changes; the rows themselves are untouched.
    expect(switchChoice(w.tree, back, 2, 'previous')).toBe(back);
    expect(branchView(rows, switchChoice(w.tree, back, 2, 'next')).messages.map((m) => m.id)).toEqual([1, 4, 5]);
    expect(rows[1]?.isActiveBranch).toBe(false);
  });
});
