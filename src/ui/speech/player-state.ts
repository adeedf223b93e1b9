/**
 * The audio player's view state (./player.ts plays; ./AudioPlayerBar.tsx shows it). Apart from the player so that
 * the first page can tell whether a message is being read without carrying the player (a chunk of its own, loaded
 * by the first Read aloud). View state only (valtio).
 */
import { proxy } from 'valtio';

export type PlayerStatus = 'idle' | 'playing' | 'paused';

export const player = proxy({
  status: 'idle' as PlayerStatus,
  messageId: null as number | null,
  /** The chunk playing (or paused at), 0-based, and how many the message has. */
  chunk: 0,
  chunkCount: 0,
  /** Chunks played to their end, in order (a skipped one is not here). */
  played: [] as number[],
  /** Waiting for the engine to make the next chunk. */
  waiting: false,
  /** Paused because the browser refused to start playback without a gesture. */
  blocked: false,
});
