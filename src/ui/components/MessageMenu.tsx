/**
 * The "Message actions" menu of one message (DESIGN UI contract): Copy text, Regenerate, Edit, Delete, Duplicate
 * from here, Retry (the common ones are also icon buttons under the message, MessageActions.tsx). A menu button with `menuitem`s, keyboard first: it opens on the first item, arrows move,
 * Home/End jump, Escape and Tab close it (focus back on the button), and a click outside closes it.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Ellipsis } from 'lucide-react';
import { IconButton } from './IconButton';

export interface MessageAction {
  label: string;
  run: () => void;
  danger?: boolean;
}

export function MessageMenu({ actions }: { actions: readonly MessageAction[] }) {
  const [open, setOpen] = useState(false);
  const [up, setUp] = useState(false);
  /** Which side of the button the menu is pinned to, when the stylesheet's side would put it past the list's edge. */
  const [side, setSide] = useState<'start' | 'end' | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  // It opens downwards, or upwards when the list below has no room for it and the list above has (the last
  // message's menu, just above the composer), so it is never cut off by the scrolling list. Sideways it keeps to
  // the list too: on a phone a reply's menu would run past the right edge (and scroll the list sideways).
  useLayoutEffect(() => {
    if (!open) {
      setSide(null);
      return setUp(false);
    }
    const list = root.current?.closest('.messages')?.getBoundingClientRect() ?? { top: 0, bottom: window.innerHeight, left: 0, right: window.innerWidth };
    const at = button.current?.getBoundingClientRect();
    const box = menu.current?.getBoundingClientRect();
    const height = box?.height ?? 0;
    if (at) setUp(at.bottom + height > list.bottom && at.top - height >= list.top);
    if (box) setSide(box.right > list.right ? 'end' : box.left < list.left ? 'start' : null);
  }, [open]);

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus({ preventScroll: true });
    const outside = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    const items = [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const focus = (i: number) => items[(i + items.length) % items.length]?.focus();
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation(); // Escape here closes the menu; it does not stop a reply
      close(true);
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      focus(at + 1);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      focus(at - 1);
    } else if (e.key === 'Home') {
      e.preventDefault();
      focus(0);
    } else if (e.key === 'End') {
      e.preventDefault();
      focus(items.length - 1);
    } else if (e.key === 'Tab') {
      close(false);
    }
  };

  return (
    <div className="message-menu" ref={root}>
      <IconButton
        ref={button}
        label="Message actions"
        icon={Ellipsis}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
      />
      {open && (
        <div role="menu" aria-label="Message actions" className={`menu${up ? ' menu-up' : ''}${side ? ` menu-${side}` : ''}`} ref={menu} onKeyDown={onKeyDown}>
          {actions.map((a) => (
            <button
              key={a.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              className={a.danger ? 'danger' : undefined}
              onClick={() => {
                close(true);
                a.run();
              }}
            >
              {a.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
