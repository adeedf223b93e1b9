/**
 * The conversation page's header: title, the model picker and the conversation's actions. Other areas place
 * their buttons ("Instructions", "Export", "Scratchpad") as children. On a phone the header is one row (issue 16):
 * the actions and the total cost go behind "More actions", a small menu that Escape or a click outside closes
 * (useMenu, shared with the composer's "More tools").
 */
import { useId, type ReactNode } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { ModelPicker } from './ModelPicker';
import { ModelSettingsButton } from './ModelSettings';
import { useMenu } from './use-menu';

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
  const menu = useMenu();
  const id = useId();
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
          ref={menu.button}
          type="button"
          className="more-actions"
          aria-label="More actions"
          title="More actions"
          aria-expanded={menu.open}
          aria-controls={id}
          onClick={menu.toggle}
        >
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
            <circle cx="5" cy="12" r="1.8" fill="currentColor" />
            <circle cx="12" cy="12" r="1.8" fill="currentColor" />
            <circle cx="19" cy="12" r="1.8" fill="currentColor" />
          </svg>
        </button>
        <div className="conversation-actions" id={id} ref={menu.panel} data-open={menu.open ? 'true' : 'false'}>
          {totalCost !== null && <span className="conversation-cost conversation-cost-menu">{totalCost}</span>}
          {children}
        </div>
      </div>
    </header>
  );
}
