/**
 * The library page (route /library; spec 000 sections 3 and 4, layout ours: docs/decisions.md): every file the
 * user added, newest first, a page at a time, searched by name; each with its status and progress, where it is
 * used, a preview of its text, and the actions Use in a conversation, Download and Delete. "Add files" adds to the
 * library only. Everything is engine data: the list follows the log live (an upload's progress included).
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { formatFileSize } from '../../protocol/attachments';
import type { ActionResult } from '../../protocol/engine';
import type { AddFileResult, LibraryFile, LibraryItemView } from '../../protocol/library';
import { engine, useQuery } from '../engine';
import { navigate } from '../router';
import { Link } from './Link';
import { statusLabel } from './library-status';
import { FileThumb } from './FileThumb';

/** Items per page (spec 000 section 9: the library page size is supplied by the caller). */
export const LIBRARY_PAGE_SIZE = 20;


async function download(item: LibraryItemView): Promise<void> {
  const r = await engine<LibraryFile>((api) => api.libraryFile(item.id));
  if (!r.ok) return;
  const url = URL.createObjectURL(r.file);
  const a = document.createElement('a');
  a.href = url;
  a.download = r.name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function UseIn({ item }: { item: LibraryItemView }) {
  const conversations = useQuery({ kind: 'conversations' });
  const id = useId();
  const [open, setOpen] = useState(false);
  const use = async (slug: string | null) => {
    setOpen(false);
    const r = await engine<ActionResult>((api) => api.attachLibraryItem(item.id, slug));
    if (r.ok) navigate(`/conversation/${slug ?? 'new'}`);
  };
  return (
    <div className="library-use">
      <button type="button" aria-haspopup="menu" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Use in conversation
      </button>
      {open && (
        <div role="menu" id={id} className="library-use-menu" aria-label={`Use ${item.name} in`}>
          <button type="button" role="menuitem" onClick={() => void use(null)}>
            New conversation
          </button>
          {(conversations ?? []).slice(0, 12).map((c) => (
            <button key={c.slug} type="button" role="menuitem" onClick={() => void use(c.slug)}>
              {c.name || 'Untitled'}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

function LibraryRowView({ item, names }: { item: LibraryItemView; names: ReadonlyMap<string, string> }) {
  return (
    <li className="library-item" data-status={item.status}>
      <FileThumb fileId={item.thumbFileId} type={item.type} fileType={item.fileType} className="library-thumb" />
      <div className="library-item-main">
        <span className="library-item-name">{item.name}</span>
        <span className="library-item-meta muted">
          {item.type === 'image' && item.mimeType ? `${item.mimeType.replace('image/', '').toUpperCase()} · ` : ''}
          {formatFileSize(item.sizeBytes)} · {new Date(item.createdAt).toLocaleString()} ·{' '}
          <span className="library-status" role="status" aria-label={`${item.name}: ${statusLabel(item)}`}>
            {statusLabel(item)}
          </span>
          {item.status === 'completed' && item.type === 'file' && ` · ${item.textChars.toLocaleString()} characters`}
        </span>
        {item.progress !== null && item.status !== 'completed' && item.status !== 'error' && (
          <progress className="library-progress" max={1} value={item.progress} aria-label={`${item.name} progress`} />
        )}
        {item.error && <span className="library-error">{item.error}</span>}
        {item.messageCount > 0 && <span className="library-used-count muted">{`Used in ${item.messageCount} message${item.messageCount === 1 ? '' : 's'}`}</span>}
        {item.conversations.length > 0 && (
          <span className="library-used muted">
            Attached in:{' '}
            {item.conversations.map((slug, i) => (
              <span key={slug}>
                {i > 0 && ', '}
                <Link href={`/conversation/${slug}`}>{names.get(slug) || slug}</Link>
              </span>
            ))}
          </span>
        )}
        {item.preview !== '' && (
          <details className="library-preview">
            <summary>Preview</summary>
            <pre>{item.preview}</pre>
          </details>
        )}
      </div>
      <div className="library-actions">
        <UseIn item={item} />
        <button type="button" onClick={() => void download(item)} aria-label={`Download ${item.name}`}>
          Download
        </button>
        <button type="button" className="danger" onClick={() => void engine<ActionResult>((api) => api.deleteLibraryItem(item.id))} aria-label={`Delete ${item.name}`}>
          Delete
        </button>
      </div>
    </li>
  );
}

export function LibraryPage() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const input = useRef<HTMLInputElement>(null);
  const view = useQuery({ kind: 'library', page, pageSize: LIBRARY_PAGE_SIZE, search });
  // "Used in" names each conversation as the sidebar does (its slug when it is not in the list, e.g. deleted).
  const conversations = useQuery({ kind: 'conversations' });
  const names = useMemo(() => new Map((conversations ?? []).map((c) => [c.slug, c.name] as const)), [conversations]);
  const pages = view ? Math.max(1, Math.ceil(view.total / view.pageSize)) : null;
  // After a delete or a search the last page may be gone: go to the last one there is (only once it is known).
  useEffect(() => {
    if (pages !== null && page > pages) setPage(pages);
  }, [page, pages]);

  const addFiles = async (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) await engine<AddFileResult>((api) => api.addFile({ name: file.name, file, slug: null, attach: false }));
    if (input.current) input.current.value = '';
  };

  return (
    <div className="library">
      <div className="library-head">
        <h1>Library</h1>
        <label className="library-add">
          <input ref={input} type="file" multiple className="visually-hidden" aria-label="Add files to the library" onChange={(e) => void addFiles(e.currentTarget.files)} />
          <span aria-hidden="true">Add files</span>
        </label>
      </div>
      <input
        type="search"
        className="library-search"
        aria-label="Search library"
        placeholder="Search by name"
        value={search}
        onChange={(e) => {
          setSearch(e.currentTarget.value);
          setPage(1);
        }}
      />
      {view === undefined ? (
        <p className="muted">Loading the library…</p>
      ) : view.total === 0 ? (
        <p className="muted">{search.trim() === '' ? 'No files yet. Attach files in a conversation, or add them here.' : `No file name contains "${search.trim()}".`}</p>
      ) : (
        <>
          <ul className="library-list" aria-label="Library files">
            {view.items.map((item) => (
              <LibraryRowView key={item.id} item={item} names={names} />
            ))}
          </ul>
          <nav className="library-pages" aria-label="Library pages">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Previous page
            </button>
            <span>
              Page {view.page} of {pages ?? 1} ({view.total} file{view.total === 1 ? '' : 's'})
            </span>
            <button type="button" disabled={page >= (pages ?? 1)} onClick={() => setPage(page + 1)}>
              Next page
            </button>
          </nav>
        </>
      )}
    </div>
  );
}
