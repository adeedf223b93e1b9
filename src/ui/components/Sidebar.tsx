/**
 * The conversation list (navigation "Conversations"): pinned conversations first, then the others under date
 * groups (Today, Yesterday, Previous 7 days, ...: ./date-groups.ts), each with its actions menu;
 * the search box above it; the balance below (the log's export and import are in Settings, "Data").
 */
import { lazy, Suspense, useId, useMemo, useState } from 'react';
import { groupByDate } from './date-groups';
import { useQuery } from '../engine';
import { type Route } from '../router';
import { Balance } from './Balance';
import { ConversationItem } from './ConversationItem';
import { Link } from './Link';
import { SidebarSearch } from './SidebarSearch';
import { useSnapshot } from 'valtio';
import { Folders } from '../account/Folders';
import { filterByFolder, folderView } from '../account/folder-state';
import { SelectionBar, SidebarHeader, useLastSearchTerm } from '../account/SidebarParts';

const MoveToFolderDialog = lazy(() => import('../account/MoveToFolder').then((m) => ({ default: m.MoveToFolderDialog })));

/** "Move to folder" (../account/MoveToFolder.tsx), a chunk loaded the first time a move starts. */
function LazyMoveToFolder() {
  const moving = useSnapshot(folderView).moving;
  const [wanted, setWanted] = useState(false);
  if (moving && !wanted) setWanted(true);
  return wanted ? (
    <Suspense fallback={null}>
      <MoveToFolderDialog />
    </Suspense>
  ) : null;
}

export function Sidebar({ route }: { route: Route }) {
  const activeSlug = route.name === 'conversation' ? route.slug : null;
  const conversations = useQuery({ kind: 'conversations' });
  const [query, setQuery] = useState('');
  const searching = query.trim().length >= 2;
  useLastSearchTerm(query, setQuery);
  const preferences = useQuery({ kind: 'preferences' });
  const folders = useQuery({ kind: 'folders' });
  const { active } = useSnapshot(folderView);
  const listVisible = preferences?.conversationsSidebarVisible ?? true;
  const shown = conversations === undefined ? undefined : filterByFolder(conversations, folders, active);
  // Pinned on top, then date groups by last activity (issue 16), in the browser's time zone.
  const groups = useMemo(() => groupByDate(shown ?? [], Date.now()), [shown]);
  const ids = useId();

  return (
    <aside className="sidebar">
      <SidebarHeader listVisible={listVisible} />
      <Link href="/conversation/new" className="new-chat" current={activeSlug === 'new'}>
        + New chat
      </Link>
      {listVisible && (
        <>
          <SidebarSearch query={query} onQuery={setQuery} activeSlug={activeSlug} />
          <div className="sidebar-scroll" hidden={searching}>
            <Folders />
            <SelectionBar visibleIds={shown?.map((c) => c.id) ?? []} all={conversations ?? []} />
            <nav aria-label="Conversations" className="conversation-list">
              {conversations === undefined && <p className="muted">Loading…</p>}
              {conversations?.length === 0 && <p className="muted">No conversations yet.</p>}
              {conversations !== undefined && conversations.length > 0 && shown?.length === 0 && <p className="muted">No conversations in this folder.</p>}
              {groups.map((g, i) => (
                <div key={g.label} role="group" className="list-group" aria-labelledby={`${ids}-${i}`}>
                  <h3 className="list-group-label" id={`${ids}-${i}`}>
                    {g.label}
                  </h3>
                  <ul>
                    {g.items.map((c) => (
                      <ConversationItem key={c.id} conversation={c} current={c.slug === activeSlug} />
                    ))}
                  </ul>
                </div>
              ))}
            </nav>
          </div>
        </>
      )}
      <LazyMoveToFolder />
      <div className="sidebar-footer">
        <Balance />
      </div>
    </aside>
  );
}
