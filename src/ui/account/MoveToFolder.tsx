/**
 * The "Move to folder" dialog (spec 001 section 4): for one conversation (its actions menu) or several (a bulk
 * move from the selection). "No folder" takes them out of any folder.
 */
import { useEffect, useRef } from 'react';
import { useSnapshot } from 'valtio';
import { useQuery } from '../engine';
import { endSelection, folderPath, folderView, moveConversations, treeOrder } from './folder-state';

export function MoveToFolderDialog() {
  const snap = useSnapshot(folderView);
  const folders = useQuery({ kind: 'folders' });
  const conversations = useQuery({ kind: 'conversations' });
  const dialog = useRef<HTMLDialogElement>(null);
  const ids = snap.moving;

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (ids && !d.open) d.showModal();
    if (!ids && d.open) d.close();
  }, [ids]);

  const current = ids?.length === 1 ? (conversations?.find((c) => c.id === ids[0])?.folderId ?? null) : undefined;
  const title = ids?.length === 1 ? (conversations?.find((c) => c.id === ids[0])?.name ?? 'conversation') : `${ids?.length ?? 0} conversations`;

  async function choose(folderId: number | null) {
    if (!ids) return;
    const ok = await moveConversations([...ids], folderId);
    folderView.moving = null;
    if (ok && ids.length > 1) endSelection();
  }

  return (
    <dialog ref={dialog} className="move-dialog" aria-labelledby="move-dialog-title" onClose={() => (folderView.moving = null)}>
      <div className="move-dialog-body">
        <h2 id="move-dialog-title">Move to folder</h2>
        <p className="muted">{title}</p>
        <ul className="move-options">
          <li>
            <button type="button" aria-current={current === null ? 'true' : undefined} onClick={() => void choose(null)}>
              No folder
            </button>
          </li>
          {treeOrder(folders ?? []).map(({ folder, depth }) => (
            <li key={folder.id} style={{ paddingLeft: `${depth * 14}px` }}>
              <button type="button" aria-current={current === folder.id ? 'true' : undefined} aria-label={folderPath(folders ?? [], folder.id)} onClick={() => void choose(folder.id)}>
                {folder.name}
              </button>
            </li>
          ))}
        </ul>
        {folders?.length === 0 && <p className="muted">No folders yet: make one with New folder in the sidebar.</p>}
        <div className="dialog-actions">
          <button type="button" onClick={() => (folderView.moving = null)}>
            Cancel
          </button>
        </div>
      </div>
    </dialog>
  );
}
