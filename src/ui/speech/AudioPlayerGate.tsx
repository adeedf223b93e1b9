/**
 * The audio player bar's place on the first page: nothing until a message is being read (./player-state.ts), then
 * the bar (./AudioPlayerBar.tsx, a chunk of its own with the player, already loaded by the Read aloud that started).
 */
import { lazy, Suspense } from 'react';
import { useSnapshot } from 'valtio';
import { player } from './player-state';

const AudioPlayerBarView = lazy(() => import('./AudioPlayerBar').then((m) => ({ default: m.AudioPlayerBarView })));

export function AudioPlayerBar() {
  const p = useSnapshot(player);
  if (p.messageId === null) return null;
  return (
    <Suspense fallback={null}>
      <AudioPlayerBarView />
    </Suspense>
  );
}
