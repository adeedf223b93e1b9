/**
 * Layout preferences applied to the frame (spec 001 sections 3, 5 and 9): the sidebar (sidebarOpen), the page links
 * (navbarCollapsed), the message menu (messageMenuDisabled), the conversation's width, and the composer's height and
 * width with their window clamps (src/protocol/layout.ts). Resizing the composer is live while dragging and saved
 * once, when the drag ends (one preferences.changed, not one per pixel).
 */
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import type { Preferences } from '../../protocol/preferences';
import {
  clampConversationWidth,
  clampInputHeight,
  clampInputWidth,
  DEFAULT_CONVERSATION_WIDTH,
  DEFAULT_INPUT_HEIGHT,
  DEFAULT_INPUT_WIDTH,
  INPUT_HEIGHT_MAX,
  INPUT_HEIGHT_MIN,
  INPUT_WIDTH_MAX,
  INPUT_WIDTH_MIN,
  maxInputHeight,
  maxInputWidth,
} from '../../protocol/layout';
import { useQuery } from '../engine';
import { savePreferences } from './SidebarParts';

export function useWindowSize(): { width: number; height: number } {
  const [size, setSize] = useState(() => ({ width: window.innerWidth, height: window.innerHeight }));
  useEffect(() => {
    const on = () => setSize({ width: window.innerWidth, height: window.innerHeight });
    window.addEventListener('resize', on);
    return () => window.removeEventListener('resize', on);
  }, []);
  return size;
}

/** Attributes of the app's root element for the layout preferences (styles/account.css reads them). */
export function frameAttributes(p: Preferences | undefined): { 'data-sidebar': string; 'data-navbar': string; 'data-message-menu': string; style: CSSProperties } {
  return {
    'data-sidebar': p?.sidebarOpen === false ? 'closed' : 'open',
    'data-navbar': p?.navbarCollapsed ? 'collapsed' : 'open',
    'data-message-menu': p?.messageMenuDisabled ? 'off' : 'on',
    style: { '--conversation-width': `${clampConversationWidth(p?.conversationWidth ?? DEFAULT_CONVERSATION_WIDTH)}px` } as CSSProperties,
  };
}

/** "Show sidebar": on wide screens, when the sidebar is hidden. */
export function ShowSidebarButton() {
  const preferences = useQuery({ kind: 'preferences' });
  if (preferences?.sidebarOpen !== false) return null;
  return (
    <button type="button" className="show-sidebar" onClick={() => savePreferences({ sidebarOpen: true })}>
      Show sidebar
    </button>
  );
}

/** The toggle of the page links: inside the links ("Hide page links") or in their place when collapsed. */
export function PageLinksToggle({ collapsed }: { collapsed: boolean }) {
  const preferences = useQuery({ kind: 'preferences' });
  const updates = useQuery({ kind: 'updates' });
  if ((preferences?.navbarCollapsed ?? false) !== collapsed) return null;
  if (!collapsed) {
    return (
      <button type="button" className="pages-toggle" aria-label="Hide page links" title="Hide page links" onClick={() => savePreferences({ navbarCollapsed: true })}>
        ‹
      </button>
    );
  }
  const unread = updates?.unread ?? 0;
  return (
    <button type="button" className="pages-show" aria-expanded={false} onClick={() => savePreferences({ navbarCollapsed: false })}>
      Show page links{unread > 0 ? ` (${unread} unread updates)` : ''}
    </button>
  );
}

type Axis = 'height' | 'width';

/** The composer's size now (preference clamped to the window, or the drag in progress) and its two resize handles. */
export function useComposerSize(): { height: number; maxHeight: number; width: number; handles: React.ReactNode } {
  const preferences = useQuery({ kind: 'preferences' });
  const win = useWindowSize();
  const [draft, setDraft] = useState<{ height?: number; width?: number }>({});
  const height = clampInputHeight(draft.height ?? preferences?.inputHeight ?? DEFAULT_INPUT_HEIGHT, win.height);
  const width = clampInputWidth(draft.width ?? preferences?.inputWidth ?? DEFAULT_INPUT_WIDTH, win.width);
  // Once the saved preference arrives, the draft is dropped.
  useEffect(() => setDraft({}), [preferences?.inputHeight, preferences?.inputWidth]);

  const commit = (axis: Axis, value: number) => {
    const v = Math.round(value);
    if (axis === 'height') savePreferences({ inputHeight: Math.min(Math.max(v, INPUT_HEIGHT_MIN), INPUT_HEIGHT_MAX) });
    else savePreferences({ inputWidth: Math.min(Math.max(v, INPUT_WIDTH_MIN), INPUT_WIDTH_MAX) });
  };
  const handles = (
    <>
      <ResizeHandle axis="height" label="Resize message input height" value={height} min={INPUT_HEIGHT_MIN} max={maxInputHeight(win.height)} onDraft={(v) => setDraft((d) => ({ ...d, height: v }))} onCommit={(v) => commit('height', v)} />
      <ResizeHandle axis="width" label="Resize message input width" value={width} min={INPUT_WIDTH_MIN} max={maxInputWidth(win.width)} onDraft={(v) => setDraft((d) => ({ ...d, width: v }))} onCommit={(v) => commit('width', v)} />
    </>
  );
  return { height, maxHeight: maxInputHeight(win.height), width, handles };
}

/**
 * A drag handle (role separator, keyboard: arrows by 10 px, Shift by 50). Height grows dragging up; width grows
 * by twice the pointer's move (the composer is centred, so each side moves by the drag).
 */
function ResizeHandle({ axis, label, value, min, max, onDraft, onCommit }: { axis: Axis; label: string; value: number; min: number; max: number; onDraft(v: number): void; onCommit(v: number): void }) {
  const drag = useRef<{ start: number; from: number; last: number } | null>(null);
  const keyTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const clamp = (v: number) => Math.min(Math.max(v, min), max);
  const at = (e: React.PointerEvent) => (axis === 'height' ? e.clientY : e.clientX);
  return (
    <div
      role="separator"
      tabIndex={0}
      aria-label={label}
      title={`${label} (drag, or arrow keys)`}
      aria-orientation={axis === 'height' ? 'horizontal' : 'vertical'}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={Math.round(max)}
      className={`resize-handle resize-${axis}`}
      onPointerDown={(e) => {
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { start: at(e), from: value, last: value };
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (!d) return;
        const delta = at(e) - d.start;
        d.last = clamp(axis === 'height' ? d.from - delta : d.from + 2 * delta);
        onDraft(d.last);
      }}
      onPointerUp={() => {
        const d = drag.current;
        drag.current = null;
        if (d && d.last !== d.from) onCommit(d.last);
      }}
      onPointerCancel={() => (drag.current = null)}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 50 : 10;
        const dir = { ArrowUp: 1, ArrowRight: 1, ArrowDown: -1, ArrowLeft: -1 }[e.key];
        if (dir === undefined) return;
        e.preventDefault();
        const next = clamp(value + dir * step);
        onDraft(next);
        if (keyTimer.current) clearTimeout(keyTimer.current);
        keyTimer.current = setTimeout(() => onCommit(next), 400);
      }}
    />
  );
}
