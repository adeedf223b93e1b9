/**
 * The conversation page's header: title, the model picker and the conversation's actions. Other areas place
 * their buttons ("Instructions", "Export", "Scratchpad") as children. On a phone the header is one row (issue 16):
 * the actions and the total cost go behind "More actions", a small menu that Escape or a click outside closes.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { ModelPicker } from './ModelPicker';
import { ModelSettingsButton } from './ModelSettings';

interface Props {
  title: string;
  model: string;
  models: readonly ModelInfo[];
  onModelChange(id: string): void;
  /** Conversation total cost line (already formatted), or null when nothing was charged yet. */
  totalCost: string | null;
  /** The picker offers Auto (text modes). */
  auto?: boolean;
  children?: ReactNode;
}

export function ConversationHeader({ title, model, models, onModelChange, totalCost, auto = false, children }: Props) {
  const [open, setOpen] = useState(false);
  const actions = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    const outside = (e: PointerEvent) => {
      const target = e.target as Node;
      if (actions.current?.contains(target) || toggle.current?.contains(target)) return;
      // A dialog opened from the menu (Instructions) is not "outside": the menu stays behind it.
      if (target instanceof Element && target.closest('[role="dialog"]')) return;
      setOpen(false);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || document.querySelector('[role="dialog"]')) return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', key);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', key);
    };
  }, [open]);
  return (
    <header className="conversation-header">
      <div className="conversation-heading">
        <h1 title={title}>{title}</h1>
        {totalCost !== null && <span className="conversation-cost">{totalCost}</span>}
      </div>
      <div className="conversation-tools">
        <ModelPicker value={model} onChange={onModelChange} models={models} auto={auto} />
        <ModelSettingsButton model={models.find((m) => m.id === model)} />
        <button
          ref={toggle}
          type="button"
          className="more-actions"
          aria-label="More actions"
          title="More actions"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen((o) => !o)}
        >
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <circle cx="5" cy="12" r="1.8" fill="currentColor" />
            <circle cx="12" cy="12" r="1.8" fill="currentColor" />
            <circle cx="19" cy="12" r="1.8" fill="currentColor" />
          </svg>
        </button>
        <div className="conversation-actions" id={id} ref={actions} data-open={open ? 'true' : 'false'}>
          {totalCost !== null && <span className="conversation-cost conversation-cost-menu">{totalCost}</span>}
          {children}
        </div>
      </div>
    </header>
  );
}
