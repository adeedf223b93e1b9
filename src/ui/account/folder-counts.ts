/**
 * The count shown beside a folder in the sidebar: its own conversations and those of every folder nested in it, as
 * choosing the folder shows them (folder-state.ts, filterByFolder). Pure: no DOM, no engine.
 */
import type { FolderView } from '../../protocol/account';

/** Each folder's id with the number of conversations in it and in its subfolders, at any depth. */
export function folderCounts(folders: readonly FolderView[]): Map<number, number> {
  const children = new Map<number, number[]>();
  for (const f of folders) if (f.parentId !== null) children.set(f.parentId, [...(children.get(f.parentId) ?? []), f.id]);
  const own = new Map(folders.map((f) => [f.id, f.conversations]));
  const out = new Map<number, number>();
  for (const f of folders) {
    // Each folder below it once, even if the links were to loop.
    const seen = new Set<number>([f.id]);
    const stack = [f.id];
    let total = 0;
    while (stack.length > 0) {
      const id = stack.pop() as number;
      total += own.get(id) ?? 0;
      for (const c of children.get(id) ?? []) {
        if (seen.has(c)) continue;
        seen.add(c);
        stack.push(c);
      }
    }
    out.set(f.id, total);
  }
  return out;
}
