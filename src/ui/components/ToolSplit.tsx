/**
 * The conversation page beside its side panel (issue 8 items 5 and 6): the code viewer or the scratchpad, one at a
 * time, in a split whose share is the panel's preference (codeViewerHorizontalSplit, scratchpadHorizontalSplit;
 * spec 001 section 9: 50). The divider drags (pointer) or steps (arrow keys) between SPLIT_MIN and SPLIT_MAX; the
 * share is saved when the drag ends. On a phone the panel takes the page's whole width instead.
 * The panels are lazy chunks: nothing of them loads until one opens.
 */
import { Suspense, lazy, useRef, useState, type ReactNode } from 'react';
import { useSnapshot } from 'valtio';
import { SPLIT_MAX, SPLIT_MIN } from '../../protocol/layout';
import { engine, useQuery } from '../engine';
import { tools, togglePanel, type ToolPanel } from '../tools-state';

const CodeViewer = lazy(() => import('./CodeViewer'));
const ScratchpadPanel = lazy(() => import('./ScratchpadPanel'));

const PREFERENCE = { viewer: 'codeViewerHorizontalSplit', scratchpad: 'scratchpadHorizontalSplit' } as const;
const KEY_STEP = 5;

const clamp = (n: number) => Math.min(SPLIT_MAX, Math.max(SPLIT_MIN, Math.round(n)));

export function ToolSplit({ slug, children }: { slug: string | null; children: ReactNode }) {
  const { panel } = useSnapshot(tools);
  const preferences = useQuery({ kind: 'preferences' });
  const [dragging, setDragging] = useState<number | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const saved = panel && preferences ? preferences[PREFERENCE[panel]] : 50;
  const split = dragging ?? saved;

  const save = (p: ToolPanel, value: number) => {
    if (preferences?.[PREFERENCE[p]] !== value) void engine((api) => api.setPreferences({ [PREFERENCE[p]]: value }));
  };
  const fromPointer = (x: number) => {
    const rect = root.current?.getBoundingClientRect();
    return rect ? clamp(((rect.right - x) / rect.width) * 100) : split;
  };

  return (
    <div className="tool-split" ref={root} data-panel={panel ?? 'none'} data-dragging={dragging !== null}>
      <div className="tool-split-main">{children}</div>
      {panel && (
        <>
          <div
            className="tool-split-divider"
            role="separator"
            aria-orientation="vertical"
            aria-label={panel === 'viewer' ? 'Resize code viewer' : 'Resize scratchpad'}
            aria-valuemin={SPLIT_MIN}
            aria-valuemax={SPLIT_MAX}
            aria-valuenow={split}
            tabIndex={0}
            onPointerDown={(e) => {
              e.currentTarget.setPointerCapture(e.pointerId);
              setDragging(fromPointer(e.clientX));
            }}
            onPointerMove={(e) => dragging !== null && setDragging(fromPointer(e.clientX))}
            onPointerUp={(e) => {
              if (dragging === null) return;
              save(panel, fromPointer(e.clientX));
              setDragging(null);
            }}
            onPointerCancel={() => setDragging(null)}
            onKeyDown={(e) => {
              const step = e.key === 'ArrowLeft' ? KEY_STEP : e.key === 'ArrowRight' ? -KEY_STEP : 0;
              if (step === 0) return;
              e.preventDefault();
              save(panel, clamp(split + step));
            }}
          />
          <div className="tool-split-panel" style={{ flexBasis: `${split}%` }}>
            <Suspense fallback={<p className="muted tool-loading">Loading…</p>}>
              {panel === 'viewer' ? <CodeViewer slug={slug} /> : <ScratchpadPanel slug={slug} />}
            </Suspense>
          </div>
        </>
      )}
    </div>
  );
}

/** The header's "Scratchpad" button: opens and closes the panel. */
export function ScratchpadButton() {
  const { panel } = useSnapshot(tools);
  return (
    <button type="button" aria-expanded={panel === 'scratchpad'} onClick={() => togglePanel('scratchpad')}>
      Scratchpad
    </button>
  );
}
