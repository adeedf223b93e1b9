import { describe, expect, it } from 'vitest';
import type { FolderView } from '../../../src/protocol/account';
import { folderCounts } from '../../../src/ui/account/folder-counts';

const folder = (id: number, parentId: number | null, conversations: number): FolderView => ({ id, name: `F${id}`, parentId, createdAt: 0, updatedAt: 0, conversations });

describe('folderCounts', () => {
  it("counts a folder's own conversations and those of its subfolders at any depth", () => {
    // Work (2) > Reports (3) > 2026 (4); Work > Empty (0); Home (1) on its own.
    const counts = folderCounts([folder(1, null, 2), folder(2, 1, 3), folder(3, 2, 4), folder(4, 1, 0), folder(5, null, 1)]);
    expect(Object.fromEntries(counts)).toEqual({ 1: 9, 2: 7, 3: 4, 4: 0, 5: 1 });
  });

  it('counts each folder once when the links loop, and a folder whose parent is gone on its own', () => {
    const counts = folderCounts([folder(1, 2, 5), folder(2, 1, 7), folder(3, 99, 2)]);
    expect(Object.fromEntries(counts)).toEqual({ 1: 12, 2: 12, 3: 2 });
  });
});
