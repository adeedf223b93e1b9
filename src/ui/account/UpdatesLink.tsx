/** The sidebar's link to the Updates page (./UpdatesPage.tsx, loaded when opened). */
import { useQuery } from '../engine';
import { Link } from '../components/Link';

/** The "Updates" page link; its name includes the unread count (DESIGN UI contract). */
export function UpdatesLink({ current }: { current: boolean }) {
  const updates = useQuery({ kind: 'updates' });
  const unread = updates?.unread ?? 0;
  return (
    <Link href="/updates" current={current} className="updates-link">
      Updates
      {unread > 0 && (
        <span className="badge unread-badge">
          {unread}
          <span className="visually-hidden"> unread</span>
        </span>
      )}
    </Link>
  );
}
