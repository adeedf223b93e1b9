/**
 * An open menu of items (role="menu", its items role="menuitem"): the sidebar's conversation and folder menus and the
 * Export menu. It opens with its first item focused; a pointer down outside `root` (by default the menu's parent,
 * which holds its toggle) closes it; Escape closes it and gives the focus back to the toggle; the arrow keys move
 * through the items, wrapping. (./use-menu.ts is the open state of a toggled panel, not its items.)
 */
import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';

export function useMenuItems(onClose: (focusToggle: boolean) => void, root?: RefObject<HTMLElement | null>): { menu: RefObject<HTMLDivElement | null>; onKeyDown(e: KeyboardEvent): void } {
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus();
    const onDown = (e: PointerEvent) => {
      const inside = root ? root.current : menu.current?.parentElement;
      if (!inside?.contains(e.target as Node)) onClose(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, while the menu is open
  }, []);

  function onKeyDown(e: KeyboardEvent) {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose(true);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
    }
  }
  return { menu, onKeyDown };
}
