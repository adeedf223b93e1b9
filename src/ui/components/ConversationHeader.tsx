/**
 * The conversation page's header: title, the model picker and the conversation's actions. Other areas place
 * their buttons ("Instructions", "Export") as children: they sit in the actions group, which wraps on a phone.
 */
import type { ReactNode } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { ModelPicker } from './ModelPicker';

interface Props {
  title: string;
  model: string;
  models: readonly ModelInfo[];
  onModelChange(id: string): void;
  /** Conversation total cost line (already formatted), or null when nothing was charged yet. */
  totalCost: string | null;
  children?: ReactNode;
}

export function ConversationHeader({ title, model, models, onModelChange, totalCost, children }: Props) {
  return (
    <header className="conversation-header">
      <div className="conversation-heading">
        <h1>{title}</h1>
        {totalCost !== null && <span className="conversation-cost">{totalCost}</span>}
      </div>
      <div className="conversation-tools">
        <ModelPicker value={model} onChange={onModelChange} models={models} />
        <div className="conversation-actions">{children}</div>
      </div>
    </header>
  );
}
