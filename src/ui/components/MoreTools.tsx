/**
 * The composer's secondary tools (Add model, Web search). On a wide screen they sit in the tools row; on a phone
 * (styles/composer.css) they wait behind a "More tools" icon button and open as a small panel above the row, so
 * the row holds the modes and the model chips without being cut off (issue 16). Escape and a click outside close it.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Plus } from 'lucide-react';
import { IconButton } from './IconButton';

export function MoreTools({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (root.current && e.target instanceof Node && !root.current.contains(e.target)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('pointerdown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div className="more-tools" ref={root}>
      <IconButton ref={toggle} className="more-tools-toggle" label="More tools" icon={Plus} aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)} />
      <div className="more-tools-panel" id={id} data-open={open}>
        {children}
      </div>
    </div>
  );
}
