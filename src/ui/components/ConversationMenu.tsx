/**
 * A sidebar conversation's open "Conversation actions" menu (./ConversationItem.tsx): Rename, Pin or Unpin, Move to
 * folder, Delete. Opens with its first item focused; Escape, a choice or a click elsewhere closes it. A chunk of its
 * own, loaded when the row's actions button is pointed at, focused or pressed.
 */
import { useEffect, useRef } from 'react';
import type { ActionResult, ConversationSummary } from '../../protocol/engine';
import { engine } from '../engine';
import { navigate } from '../router';
import { view } from '../state';
import { folderView } from '../account/folder-state';
import { run } from './conversation-actions';

export default function ConversationMenu({ conversation, current, onClose, onRename }: { conversation: ConversationSummary; current: boolean; onClose(focusToggle: boolean): void; onRename(): void }) {
  const { slug, name, pinned } = conversation;
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
    const onDown = (e: PointerEvent) => {
      if (!menu.current?.parentElement?.contains(e.target as Node)) onClose(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, while the menu is open
  }, []);

  function onMenuKey(e: React.KeyboardEvent) {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose(true);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items[next]?.focus();
    }
  }

  async function remove() {
    onClose(false);
    const ok = await run(() => engine<ActionResult>((api) => api.deleteConversation(slug)));
    // On a phone the drawer closes, so that the notice with Undo is not hidden behind it.
    if (ok) view.drawerOpen = false;
    if (ok && current) navigate('/conversation/new');
  }

  return (
    <div ref={menu} role="menu" aria-label={`Actions for ${name}`} className="menu conversation-menu" onKeyDown={onMenuKey}>
      <button
        type="button"
        role="menuitem"
        onClick={() => {
          onClose(false);
          onRename();
        }}
      >
        Rename
      </button>
      <button
        type="button"
        role="menuitem"
        onClick={() => {
          onClose(true);
          void run(() => engine<ActionResult>((api) => api.pinConversation(slug, !pinned)));
        }}
      >
        {pinned ? 'Unpin' : 'Pin'}
      </button>
      <button
        type="button"
        role="menuitem"
        onClick={() => {
          onClose(true);
          folderView.moving = [conversation.id];
        }}
      >
        Move to folder
      </button>
      <button type="button" role="menuitem" className="danger" onClick={() => void remove()}>
        Delete
      </button>
    </div>
  );
}
