/**
 * The sidebar's folders (spec 001 section 4): "All conversations" and the folder tree, each folder a filter button
 * with a "Folder actions" menu (Rename, New subfolder, Delete) and, when it has subfolders, an Expand / Collapse
 * button (expandedFolderIds, a preference). Deleting the active folder resets the filter to all. The name field and
 * the open menu are in ./FolderEdit.tsx, loaded when first needed.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { ActionResult } from '../../protocol/engine';
import type { FolderView } from '../../protocol/account';
import { folderCounts } from './folder-counts';
import { engine, useQuery } from '../engine';
import { folderView, report, treeOrder } from './folder-state';
import { preloadOn } from '../components/preload-on';

// The name field and the open menu are a chunk of their own (./FolderEdit.tsx), preloaded on pointer or focus.
const loadEdit = () => import('./FolderEdit');
const preloadEdit = preloadOn(loadEdit);
const LazyNameInput = lazy(() => loadEdit().then((m) => ({ default: m.NameInput })));
const FolderMenuItems = lazy(() => loadEdit().then((m) => ({ default: m.FolderMenuItems })));

function NameInput(props: { initial: string; label: string; onDone(name: string | null): void }) {
  return (
    <Suspense fallback={null}>
      <LazyNameInput {...props} />
    </Suspense>
  );
}

function FolderMenu({ folder, onRename, onSubfolder }: { folder: FolderView; onRename(): void; onSubfolder(): void }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <div className="folder-actions" ref={root}>
      <button ref={button} type="button" className="conversation-actions-toggle" aria-label="Folder actions" aria-haspopup="menu" aria-expanded={open} {...preloadEdit} onClick={() => setOpen((o) => !o)}>
        ⋯
      </button>
      {open && (
        <Suspense fallback={null}>
          <FolderMenuItems
            folder={folder}
            root={root}
            onRename={onRename}
            onSubfolder={onSubfolder}
            onClose={(focusToggle) => {
              setOpen(false);
              if (focusToggle) button.current?.focus();
            }}
          />
        </Suspense>
      )}
    </div>
  );
}

export function Folders() {
  const folders = useQuery({ kind: 'folders' });
  const preferences = useQuery({ kind: 'preferences' });
  const snap = useSnapshot(folderView);
  /** Naming a new folder: at the top (null) or inside a folder (its id); undefined when not naming. */
  const [creating, setCreating] = useState<number | null | undefined>(undefined);
  const [renaming, setRenaming] = useState<number | null>(null);
  const expanded = new Set(preferences?.expandedFolderIds ?? []);

  // The active folder went (deleted here or in another tab): back to all.
  useEffect(() => {
    if (folders && snap.active !== 'all' && !folders.some((f) => f.id === snap.active)) folderView.active = 'all';
  }, [folders, snap.active]);

  const setExpanded = (id: number, open: boolean) => {
    const next = open ? [...expanded, id] : [...expanded].filter((x) => x !== id);
    void engine((api) => api.setPreferences({ expandedFolderIds: [...new Set(next)] }));
  };

  async function create(name: string | null, parentId: number | null) {
    setCreating(undefined);
    if (name === null) return;
    const result = await engine<{ ok: true; id: number } | { ok: false; error: string }>((api) => api.createFolder(name, parentId));
    if (report(result) && parentId !== null && !expanded.has(parentId)) setExpanded(parentId, true);
  }

  async function rename(id: number, name: string | null) {
    setRenaming(null);
    if (name !== null) report(await engine<ActionResult>((api) => api.renameFolder(id, name)));
  }

  const rows = treeOrder(folders ?? []);
  const counts = folderCounts(folders ?? []);
  const hasChildren = new Set((folders ?? []).map((f) => f.parentId).filter((p): p is number => p !== null));
  // A folder shows when every folder above it is expanded.
  const parentOf = new Map((folders ?? []).map((f) => [f.id, f.parentId]));
  const visible = (f: FolderView) => {
    let p = f.parentId;
    const seen = new Set<number>();
    while (p !== null && parentOf.has(p) && !seen.has(p)) {
      if (!expanded.has(p)) return false;
      seen.add(p);
      p = parentOf.get(p) ?? null;
    }
    return true;
  };

  return (
    <section className="folders" aria-label="Folders">
      <div className="folders-head">
        <span className="folders-title">Folders</span>
        <button type="button" className="folders-new" {...preloadEdit} onClick={() => setCreating(null)}>
          New folder
        </button>
      </div>
      <ul className="folder-list">
        <li className="folder-row">
          <button type="button" className="folder-filter" aria-pressed={snap.active === 'all'} onClick={() => (folderView.active = 'all')}>
            All conversations
          </button>
        </li>
        {rows.filter(({ folder }) => visible(folder)).map(({ folder, depth }) => (
          <li key={folder.id} className="folder-row" style={{ paddingLeft: `${depth * 14}px` }}>
            {hasChildren.has(folder.id) ? (
              <button
                type="button"
                className="folder-expand"
                aria-expanded={expanded.has(folder.id)}
                aria-label={`${expanded.has(folder.id) ? 'Collapse' : 'Expand'} ${folder.name}`}
                onClick={() => setExpanded(folder.id, !expanded.has(folder.id))}
              >
                {expanded.has(folder.id) ? '▾' : '▸'}
              </button>
            ) : (
              <span className="folder-expand-space" aria-hidden="true" />
            )}
            {renaming === folder.id ? (
              <NameInput initial={folder.name} label="Folder name" onDone={(name) => void rename(folder.id, name)} />
            ) : (
              <button
                type="button"
                className="folder-filter"
                aria-pressed={snap.active === folder.id}
                title={`${counts.get(folder.id) ?? 0} conversation${counts.get(folder.id) === 1 ? '' : 's'}`}
                onClick={() => (folderView.active = folder.id)}
              >
                <span className="folder-name">{folder.name}</span>
                <span className="folder-count" aria-hidden="true">
                  {counts.get(folder.id) ?? 0}
                </span>
              </button>
            )}
            <FolderMenu folder={folder} onRename={() => setRenaming(folder.id)} onSubfolder={() => setCreating(folder.id)} />
            {creating === folder.id && (
              <div className="folder-new-row" style={{ paddingLeft: '14px' }}>
                <NameInput initial="" label="New folder name" onDone={(name) => void create(name, folder.id)} />
              </div>
            )}
          </li>
        ))}
        {creating === null && (
          <li className="folder-row">
            <NameInput initial="" label="New folder name" onDone={(name) => void create(name, null)} />
          </li>
        )}
      </ul>
    </section>
  );
}
