/**
 * The folder tree's editing parts (./Folders.tsx): the name field of a new or renamed folder and a folder's open
 * "Folder actions" menu (Rename, New subfolder, Delete). A chunk of its own, loaded when "New folder" or a folder's
 * actions button is pointed at, focused or pressed: the first page shows the tree only.
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { ActionResult } from '../../protocol/engine';
import type { FolderView } from '../../protocol/account';
import { engine } from '../engine';
import { folderView, report } from './folder-state';
import { useMenuItems } from '../components/use-menu-items';

export function NameInput({ initial, label, onDone }: { initial: string; label: string; onDone(name: string | null): void }) {
  const [name, setName] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => input.current?.select(), []);
  const finish = (value: string | null) => {
    if (done.current) return;
    done.current = true;
    onDone(value);
  };
  return (
    <input
      ref={input}
      className="folder-name-input"
      aria-label={label}
      value={name}
      maxLength={100}
      onChange={(e) => setName(e.target.value)}
      onBlur={() => finish(name.trim() === '' ? null : name)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          finish(name.trim() === '' ? null : name);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          finish(null);
        }
      }}
    />
  );
}

/** A folder's open actions menu: opens with its first item focused; Escape, a choice or a click elsewhere closes it. */
export function FolderMenuItems({ folder, root, onClose, onRename, onSubfolder }: { folder: FolderView; root: RefObject<HTMLDivElement | null>; onClose(focusToggle: boolean): void; onRename(): void; onSubfolder(): void }) {
  const { menu, onKeyDown } = useMenuItems(onClose, root);
  const pick = (fn: () => void) => () => {
    onClose(false);
    fn();
  };
  const remove = async () => {
    if (!report(await engine<ActionResult>((api) => api.deleteFolder(folder.id)))) return;
    // Spec 001 section 4: deleting a folder resets the active folder to "all" (also when a parent of it goes).
    folderView.active = 'all';
  };
  return (
    <div
      ref={menu}
      role="menu"
      aria-label={`Actions for folder ${folder.name}`}
      className="menu conversation-menu"
      onKeyDown={onKeyDown}
    >
      <button type="button" role="menuitem" onClick={pick(onRename)}>
        Rename
      </button>
      <button type="button" role="menuitem" onClick={pick(onSubfolder)}>
        New subfolder
      </button>
      <button type="button" role="menuitem" className="danger" onClick={pick(() => void remove())}>
        Delete
      </button>
    </div>
  );
}
