/**
 * This tab's folder view (valtio, ephemeral): the active folder filter, the bulk selection and the "Move to folder"
 * dialog. The folders and the links are engine data; the spec's active folder resets to "all" when its folder goes.
 */
import { proxy } from 'valtio';
import type { ActionResult, ConversationSummary } from '../../protocol/engine';
import type { ActiveFolder, FolderView } from '../../protocol/account';
import { engine } from '../engine';
import { showLocalNotice } from '../state';

export const folderView = proxy({
  active: 'all' as ActiveFolder,
  /** Selection mode for a bulk move, and the conversations chosen. */
  selecting: false,
  selected: [] as number[],
  /** The "Move to folder" dialog is open for these conversations. */
  moving: null as number[] | null,
});

export function toggleSelected(id: number): void {
  folderView.selected = folderView.selected.includes(id) ? folderView.selected.filter((x) => x !== id) : [...folderView.selected, id];
}

export function endSelection(): void {
  folderView.selecting = false;
  folderView.selected = [];
}

export function report(result: ActionResult | { ok: true; id: number } | { ok: false; error: string }): boolean {
  if (!result.ok) showLocalNotice({ title: result.error, text: '', tone: 'red', durationMs: 5000 });
  return result.ok;
}

export async function moveConversations(ids: number[], folderId: number | null): Promise<boolean> {
  return report(await engine<ActionResult>((api) => api.moveConversationsToFolder(ids, folderId)));
}

/** Every folder nested in `id`, with it. */
export function folderAndDescendants(folders: readonly FolderView[], id: number): Set<number> {
  const out = new Set<number>([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const f of folders) {
      if (f.parentId !== null && out.has(f.parentId) && !out.has(f.id)) {
        out.add(f.id);
        grew = true;
      }
    }
  }
  return out;
}

/** The conversations the active folder shows: all, or those in the folder and the folders nested in it. */
export function filterByFolder(conversations: readonly ConversationSummary[], folders: readonly FolderView[] | undefined, active: ActiveFolder): readonly ConversationSummary[] {
  if (active === 'all' || !folders) return conversations;
  const inside = folderAndDescendants(folders, active);
  return conversations.filter((c) => c.folderId !== null && inside.has(c.folderId));
}

/** A folder's name with its parents' ("Work / Reports"). */
export function folderPath(folders: readonly FolderView[], id: number): string {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const names: string[] = [];
  const seen = new Set<number>();
  let at: number | null = id;
  while (at !== null && !seen.has(at)) {
    seen.add(at);
    const f = byId.get(at);
    if (!f) break;
    names.unshift(f.name);
    at = f.parentId;
  }
  return names.join(' / ');
}

/** Folders in tree order (each followed by its children), with their depth (0 at the top). */
export function treeOrder(folders: readonly FolderView[]): { folder: FolderView; depth: number }[] {
  const children = new Map<number | null, FolderView[]>();
  const ids = new Set(folders.map((f) => f.id));
  for (const f of folders) {
    const parent = f.parentId !== null && ids.has(f.parentId) ? f.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), f]);
  }
  const out: { folder: FolderView; depth: number }[] = [];
  const seen = new Set<number>();
  const walk = (parent: number | null, depth: number) => {
    for (const f of children.get(parent) ?? []) {
      if (seen.has(f.id)) continue;
      seen.add(f.id);
      out.push({ folder: f, depth });
      walk(f.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}
