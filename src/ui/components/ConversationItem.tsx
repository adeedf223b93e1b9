/**
 * One conversation in the sidebar list: its link, and the "Conversation actions" menu (Rename, Pin or Unpin,
 * Move to folder, Delete); a checkbox while conversations are being selected for a bulk move. Rename edits the name in place: Enter or leaving the field saves, Escape cancels.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Pin } from './first-page-icons';
import { COPY_SUFFIX } from '../../shared/composer-messages';
import type { ActionResult, ConversationSummary } from '../../protocol/engine';
import { engine } from '../engine';
import { Link } from './Link';
import { useSnapshot } from 'valtio';
import { folderView, toggleSelected } from '../account/folder-state';
import { run } from './conversation-actions';
import { preloadOn } from './preload-on';

// The open actions menu is a chunk of its own (./ConversationMenu.tsx), preloaded on pointer or focus.
const loadMenu = () => import('./ConversationMenu');
const preloadMenu = preloadOn(loadMenu);
const ConversationMenu = lazy(loadMenu);

export function ConversationItem({ conversation, current }: { conversation: ConversationSummary; current: boolean }) {
  const { slug, name, pinned } = conversation;
  const [menuOpen, setMenuOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [draft, setDraft] = useState(name);
  const toggle = useRef<HTMLButtonElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const folders = useSnapshot(folderView);

  useEffect(() => {
    if (renaming) input.current?.select();
  }, [renaming]);

  async function commitRename() {
    if (!renaming) return;
    setRenaming(false);
    const next = draft.trim();
    if (next === '' || next === name) return;
    await run(() => engine<ActionResult>((api) => api.renameConversation(slug, next)));
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
          {...preloadMenu}
          onClick={() => setMenuOpen((o) => !o)}
        >
          ⋯
        </button>
        {menuOpen && (
          <Suspense fallback={null}>
            <ConversationMenu
              conversation={conversation}
              current={current}
              onClose={(focusToggle) => {
                setMenuOpen(false);
                if (focusToggle) toggle.current?.focus();
              }}
              onRename={() => {
                setDraft(name);
                setRenaming(true);
              }}
            />
          </Suspense>
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
