/**
 * The tab's audio player, shown while a message is read aloud (region "Audio player"): its state (idle, playing,
 * paused), which part plays, Pause / Play and Stop. data-state and data-played let tests (and people) see the
 * sequence: a chunk that failed is not in data-played.
 */
import { useSnapshot } from 'valtio';
import { pauseAudio, player, resumeAudio, stopAudio } from './player';

export function AudioPlayerBarView() {
  const p = useSnapshot(player);
  if (p.messageId === null) return null;
  const part = p.chunkCount > 1 ? ` · part ${Math.min(p.chunk + 1, p.chunkCount)} of ${p.chunkCount}` : '';
  const label = p.status === 'idle' ? 'Finished' : p.waiting ? 'Making audio…' : p.status === 'playing' ? 'Playing' : 'Paused';
  return (
    <section className="audio-player" aria-label="Audio player" data-state={p.status} data-played={p.played.join(',')} data-chunk={p.chunk}>
      <span className="audio-player-state" role="status">
        {label}
        {part}
      </span>
      {p.status === 'idle' ? null : p.status === 'playing' ? (
        <button type="button" onClick={pauseAudio}>
          Pause
        </button>
      ) : (
        <button type="button" onClick={resumeAudio}>
          Play
        </button>
      )}
      <button type="button" onClick={stopAudio}>
        {p.status === 'idle' ? 'Close' : 'Stop'}
      </button>
    </section>
  );
}
