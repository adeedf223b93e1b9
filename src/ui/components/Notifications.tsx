import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { useSnapshot } from 'valtio';
import type { Notice } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { dismissLocalNotice, view } from '../state';
import { AutoTitleQuestion } from './AutoTitleQuestion';
import { loadNoticeBodies } from './lazy-chunks';

// Each notice's body is in a chunk loaded after the first paint (./NoticeBodies.tsx, ./lazy-chunks.ts).
const NoticeItem = lazy(() => loadNoticeBodies().then((m) => ({ default: m.NoticeItem })));

/** At most this many notices show at once; the rest wait behind "+N more" (issue 16). */
export const MAX_VISIBLE_NOTICES = 3;

/**
 * The notices float over the page (a stack at the bottom right on a wide screen, above the composer on a phone):
 * they never move the layout. The newest show first; beyond three, "+N more" opens the rest.
 */
export function Notifications({ children }: { children?: ReactNode }) {
  const engineNotices = useQuery({ kind: 'notices' }) ?? [];
  const snap = useSnapshot(view);
  const [expanded, setExpanded] = useState(false);
  const all: { notice: Notice; dismiss(): void }[] = [
    ...engineNotices.map((n) => ({ notice: n, dismiss: () => void engine((api) => api.dismissNotice(n.id)) })),
    ...snap.localNotices.map((n) => ({ notice: n as Notice, dismiss: () => dismissLocalNotice(n.id) })),
  ];
  const shown = expanded ? all : all.slice(-MAX_VISIBLE_NOTICES);
  const hidden = all.length - shown.length;
  useEffect(() => {
    if (all.length <= MAX_VISIBLE_NOTICES) setExpanded(false);
  }, [all.length]);
  return (
    <div className="overlay-stack">
      {children}
      <section className="notifications" aria-label="Notifications" aria-live="polite">
        <AutoTitleQuestion />
        {hidden > 0 && (
          <button type="button" className="notice-more" aria-expanded={false} onClick={() => setExpanded(true)}>
            +{hidden} more
          </button>
        )}
        {shown.length > 0 && (
          <Suspense fallback={null}>
            {shown.map(({ notice, dismiss }) => (
              <NoticeItem key={notice.id} notice={notice} onDismiss={dismiss} />
            ))}
          </Suspense>
        )}
        {expanded && all.length > MAX_VISIBLE_NOTICES && (
          <button type="button" className="notice-more" aria-expanded onClick={() => setExpanded(false)}>
            Show fewer
          </button>
        )}
      </section>
    </div>
  );
}
