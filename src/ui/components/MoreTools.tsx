/**
 * The composer's secondary tools (Add model, Web search). On a wide screen they sit in the tools row; on a phone
 * (styles/composer.css) they wait behind a "More tools" icon button and open as a small panel above the row, so
 * the row holds the modes and the model chips without being cut off (issue 16). Escape and a click outside close it
 * (useMenu, shared with the header's "More actions").
 */
import { useId, useLayoutEffect, type ReactNode, type RefObject } from 'react';
import { Plus } from 'lucide-react';
import { IconButton } from './IconButton';
import { useMenu } from './use-menu';

export function MoreTools({ children }: { children: ReactNode }) {
  const menu = useMenu();
  const id = useId();
  useOverlayAbove(menu.panel, menu.open);
  return (
    <div className="more-tools">
      <IconButton ref={menu.button} className="more-tools-toggle" label="More tools" icon={Plus} aria-expanded={menu.open} aria-controls={id} onClick={menu.toggle} />
      <div className="more-tools-panel" id={id} ref={menu.panel} data-open={menu.open}>
        {children}
      </div>
    </div>
  );
}

/**
 * While the panel is open on a phone it rises above the composer, where the floating notices and questions sit
 * (the auto-title question): they move up above the panel (the root's --menu-offset), so neither covers the other.
 */
function useOverlayAbove(panel: RefObject<HTMLDivElement | null>, open: boolean): void {
  useLayoutEffect(() => {
    const el = panel.current;
    if (!open || !el) return;
    const root = document.documentElement;
    const place = () => {
      const r = el.getBoundingClientRect();
      if (r.height === 0) root.style.removeProperty('--menu-offset');
      else root.style.setProperty('--menu-offset', `${Math.max(0, Math.round(innerHeight - r.top))}px`);
    };
    place();
    const observer = new ResizeObserver(place);
    observer.observe(el);
    addEventListener('resize', place);
    return () => {
      observer.disconnect();
      removeEventListener('resize', place);
      root.style.removeProperty('--menu-offset');
    };
  }, [panel, open]);
}
