/**
 * One conversation, read-only, with the app's own message list and a working branch navigator (switching is local
 * to this view). Used by the share page and the Inspector's time scrubber (./read-only.ts).
 */
import { useMemo, useState, type ReactNode } from 'react';
import type { MessageRow } from '../../events/model';
import type { ModelInfo } from '../../protocol/api';
import { MessageList } from './MessageList';
import { branchView, ReadOnlyContext, switchChoice, type BranchChoices, type ReadOnlyView } from './read-only';

export function ReadOnlyConversation({ rows, models, empty }: { rows: readonly MessageRow[]; models: readonly ModelInfo[]; empty?: ReactNode }) {
  const [choices, setChoices] = useState<BranchChoices>(new Map());
  const view = useMemo(() => branchView(rows, choices), [rows, choices]);
  const readOnly = useMemo<ReadOnlyView>(() => ({ switchBranch: (id, direction) => setChoices((c) => switchChoice(view.tree, c, id, direction)) }), [view.tree]);
  return (
    <ReadOnlyContext.Provider value={readOnly}>
      {view.mediaLeftOut && <p className="muted read-only-note">Images, files and audio are not part of this copy; only the text is.</p>}
      <MessageList messages={view.messages} models={models} empty={empty} />
    </ReadOnlyContext.Provider>
  );
}
