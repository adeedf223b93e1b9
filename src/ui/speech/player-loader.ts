/** Loads the audio player (./player.ts, a chunk of its own) once; the first page calls it through this. */
export const loadPlayer = () => import('./player');
