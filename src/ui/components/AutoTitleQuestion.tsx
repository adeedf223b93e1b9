/**
 * Asks once whether conversations should get generated titles (spec 001: autoGenerateTitle, asked once, recorded
 * in hasBeenAskedAboutAutoTitle). Shown after the first conversation exists; Yes also titles the open one. The
 * question itself is in the notices' chunk (./NoticeBodies.tsx).
 */
import { lazy, Suspense } from 'react';
import { useQuery } from '../engine';
import { loadNoticeBodies } from './lazy-chunks';

const AutoTitleBody = lazy(() => loadNoticeBodies().then((m) => ({ default: m.AutoTitleBody })));

export function AutoTitleQuestion() {
  const preferences = useQuery({ kind: 'preferences' });
  const conversations = useQuery({ kind: 'conversations' });
  if (!preferences || preferences.hasBeenAskedAboutAutoTitle || preferences.autoGenerateTitle) return null;
  if (!conversations || conversations.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <AutoTitleBody />
    </Suspense>
  );
}
