/**
 * One conversation in the sidebar list: its link, and the "Conversation actions" menu (Rename, Pin or Unpin,
 * Move to folder, Delete); a checkbox while conversations are being selected for a bulk move. Rename edits the name in place: Enter or leaving the field saves, Escape cancels.
 */
import { useEffect, useRef, useState } from 'react';
import { Pin } from './first-page-icons';
import { COPY_SUFFIX } from '../../shared/composer-messages';
import type { ActionResult, ConversationSummary } from '../../protocol/engine';
import { engine } from '../engine';
import { Link } from './Link';
import { navigate } from '../router';
import { showLocalNotice, view } from '../state';
import { useSnapshot } from 'valtio';
import { folderView, toggleSelected } from '../account/folder-state';

async function run(fn: () => Promise<ActionResult>): Promise<boolean> {
  const result = await fn();
  if (!result.ok) showLocalNotice({ title: result.error, text: '', tone: 'red', durationMs: 5000 });
  return result.ok;
}

export function ConversationItem({ conversation, current }: { conversation: ConversationSummary; current: boolean }) {
  const { slug, name, pinned } = conversation;
  const [menuOpen, setMenuOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [draft, setDraft] = useState(name);
  const menu = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const folders = useSnapshot(folderView);

  // The menu closes on a click elsewhere; it opens with its first item focused.
  useEffect(() => {
    if (!menuOpen) return;
    menu.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
    const onDown = (e: PointerEvent) => {
      if (!menu.current?.parentElement?.contains(e.target as Node)) setMenuOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [menuOpen]);

  useEffect(() => {
    if (renaming) input.current?.select();
  }, [renaming]);

  function closeMenu() {
    setMenuOpen(false);
    toggle.current?.focus();
  }

  function onMenuKey(e: React.KeyboardEvent) {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closeMenu();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items[next]?.focus();
    }
  }

  async function commitRename() {
    if (!renaming) return;
    setRenaming(false);
    const next = draft.trim();
    if (next === '' || next === name) return;
    await run(() => engine<ActionResult>((api) => api.renameConversation(slug, next)));
  }

  async function remove() {
    setMenuOpen(false);
    const ok = await run(() => engine<ActionResult>((api) => api.deleteConversation(slug)));
    // On a phone the drawer closes, so that the notice with Undo is not hidden behind it.
    if (ok) view.drawerOpen = false;
    if (ok && current) navigate('/conversation/new');
  }

  return (
    <li className={`conversation-item${current ? ' current' : ''}`} data-pinned={pinned ? 'true' : undefined}>
      {folders.selecting && (
        <input type="checkbox" className="conversation-select" aria-label={`Select ${name || 'Untitled'}`} checked={folders.selected.includes(conversation.id)} onChange={() => toggleSelected(conversation.id)} />
      )}
      {renaming ? (
        <input
          ref={input}
          className="conversation-rename"
          aria-label="Conversation name"
          value={draft}
          maxLength={150}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => void commitRename()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void commitRename();
            } else if (e.key === 'Escape') {
              e.preventDefault();
              e.stopPropagation();
              setRenaming(false);
              setDraft(name);
              toggle.current?.focus();
            }
          }}
        />
      ) : (
        <Link href={`/conversation/${slug}`} current={current} className="conversation-link">
          {/* A pin icon (not a dot, which is the Updates page's unread mark), hidden from the accessible name. */}
          {pinned && <Pin className="pin-mark" size={13} strokeWidth={2.25} aria-hidden />}
          <ConversationName name={name || 'Untitled'} />
        </Link>
      )}
      <div className="conversation-item-actions">
        <button
          ref={toggle}
          type="button"
          className="conversation-actions-toggle"
          aria-label="Conversation actions"
          aria-haspopup="menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((o) => !o)}
        >
          ⋯
        </button>
        {menuOpen && (
          <div ref={menu} role="menu" aria-label={`Actions for ${name}`} className="menu conversation-menu" onKeyDown={onMenuKey}>
            <button
              type="button"
              role="menuitem"
              onClick={() => {
                setMenuOpen(false);
                setDraft(name);
                setRenaming(true);
              }}
            >
              Rename
            </button>
            <button
              type="button"
              role="menuitem"
              onClick={() => {
                closeMenu();
                void run(() => engine<ActionResult>((api) => api.pinConversation(slug, !pinned)));
              }}
            >
              {pinned ? 'Unpin' : 'Pin'}
            </button>
            <button
              type="button"
              role="menuitem"
              onClick={() => {
                closeMenu();
                folderView.moving = [conversation.id];
              }}
            >
              Move to folder
            </button>
            <button type="button" role="menuitem" className="danger" onClick={() => void remove()}>
              Delete
            </button>
          </div>
        )}
      </div>
    </li>
  );
}

/**
 * The name on one line, cut with an ellipsis; a copy's " (Copy)" suffix stays in view, the cut falls before it
 * (issue 16: a long copied name lost its suffix, so the copy looked like the original).
 */
function ConversationName({ name }: { name: string }) {
  const suffix = COPY_SUFFIX;
  if (!name.endsWith(suffix) || name.length === suffix.length) return <span className="conversation-name">{name}</span>;
  return (
    <span className="conversation-name conversation-name-split">
      <span className="conversation-name-base">{name.slice(0, -suffix.length)}</span>
      <span className="conversation-name-suffix">{suffix}</span>
    </span>
  );
}
