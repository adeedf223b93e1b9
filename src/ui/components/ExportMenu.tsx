/**
 * The conversation header's Export button (DESIGN UI contract: button "Export" with "Markdown", "JSON", "PDF"). Its
 * menu and the export itself are a chunk of their own (./ExportFormats.tsx), loaded when the button is pointed at,
 * focused or pressed.
 */
import { lazy, Suspense, useRef, useState } from 'react';
import type { ExportFormat } from '../../protocol/engine';
import { preloadOn } from './preload-on';

const loadFormats = () => import('./ExportFormats');
const ExportFormatMenu = lazy(() => loadFormats().then((m) => ({ default: m.ExportFormatMenu })));
const preload = preloadOn(loadFormats);

export function ExportMenu({ slug }: { slug: string | null }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  return (
    <div className="export-menu">
      <button
        ref={toggle}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-busy={busy !== null}
        {...preload}
        onClick={() => setOpen((o) => !o)}
      >
        {busy === null ? 'Export' : 'Exporting…'}
      </button>
      {open && (
        <Suspense fallback={null}>
          <ExportFormatMenu
            slug={slug}
            onBusy={setBusy}
            onClose={(focusToggle) => {
              setOpen(false);
              if (focusToggle) toggle.current?.focus();
            }}
          />
        </Suspense>
      )}
    </div>
  );
}
