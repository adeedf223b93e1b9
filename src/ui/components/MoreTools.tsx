/**
 * The composer's secondary tools (Add model, Web search). On a wide screen they sit in the tools row; on a phone
 * (styles/composer.css) they wait behind a "More tools" icon button and open as a small panel above the row, so
 * the row holds the modes and the model chips without being cut off (issue 16). Escape and a click outside close it
 * (useMenu, shared with the header's "More actions").
 */
import { useId, type ReactNode } from 'react';
import { useDistanceToBottom } from './use-distance-to-bottom';
import { Plus } from './first-page-icons';
import { IconButton } from './IconButton';
import { useMenu } from './use-menu';

export function MoreTools({ children }: { children: ReactNode }) {
  const menu = useMenu();
  const id = useId();
  // While the panel is open on a phone it rises above the composer, where the floating notices and questions sit
  // (the auto-title question): they move up above the panel, so neither covers the other.
  useDistanceToBottom(menu.panel, '--menu-offset', menu.open);
  return (
    <div className="more-tools">
      <IconButton ref={menu.button} className="more-tools-toggle" label="More tools" icon={Plus} aria-expanded={menu.open} aria-controls={id} onClick={menu.toggle} />
      <div className="more-tools-panel" id={id} ref={menu.panel} data-open={menu.open}>
        {children}
      </div>
    </div>
  );
}
