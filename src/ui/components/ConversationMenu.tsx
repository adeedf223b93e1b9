/**
 * A sidebar conversation's open "Conversation actions" menu (./ConversationItem.tsx): Rename, Pin or Unpin, Move to
 * folder, Delete. Opens with its first item focused; Escape, a choice or a click elsewhere closes it. A chunk of its
 * own, loaded when the row's actions button is pointed at, focused or pressed.
 */
import type { ActionResult, ConversationSummary } from '../../protocol/engine';
import { engine } from '../engine';
import { navigate } from '../router';
import { view } from '../state';
import { folderView } from '../account/folder-state';
import { run } from './conversation-actions';
import { useMenuItems } from './use-menu-items';

export default function ConversationMenu({ conversation, current, onClose, onRename }: { conversation: ConversationSummary; current: boolean; onClose(focusToggle: boolean): void; onRename(): void }) {
  const { slug, name, pinned } = conversation;
  const { menu, onKeyDown: onMenuKey } = useMenuItems(onClose);

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
