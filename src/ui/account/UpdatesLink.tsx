/** The sidebar's link to the Updates page (./UpdatesPage.tsx, loaded when opened). */
import { Bell } from '../components/first-page-icons';
import { useQuery } from '../engine';
import { PageLink } from '../components/Link';

/** The "Updates" page link; its name includes the unread count (DESIGN UI contract). */
export function UpdatesLink({ current }: { current: boolean }) {
  const updates = useQuery({ kind: 'updates' });
  const unread = updates?.unread ?? 0;
  return (
    <PageLink href="/updates" current={current} icon={Bell} label="Updates">
      {unread > 0 && (
        <span className="badge unread-badge">
          {unread}
          <span className="visually-hidden"> unread</span>
        </span>
      )}
    </PageLink>
  );
}
