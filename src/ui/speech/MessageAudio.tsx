/** The audio of an Audio mode reply (or a message read aloud): a button that plays it, and its parts. */
import { useSnapshot } from 'valtio';
import type { MessageAudio as Audio } from '../../events/model';
import { speechModel } from '../../protocol/speech-catalogue';
import { player, readAloud } from './player';

export function MessageAudio({ messageId, audio }: { messageId: number; audio: Audio }) {
  const p = useSnapshot(player);
  const mine = p.messageId === messageId && p.status !== 'idle';
  const made = audio.chunks.filter((c) => c !== null).length;
  const model = speechModel(audio.model);
  const voice = model?.voices.find((v) => v.id === audio.voice)?.name ?? audio.voice;
  return (
    <div className="message-audio">
      <button type="button" className="play-audio" onClick={() => void readAloud(messageId, { model: audio.model })}>
        {mine ? (p.status === 'playing' ? 'Pause audio' : 'Play audio') : 'Play audio'}
      </button>
      <span className="muted">
        {model?.displayName ?? audio.model} · {voice}
        {audio.chunkCount > 1 ? ` · ${made} of ${audio.chunkCount} parts` : ''}
        {audio.failed.length > 0 ? ` · ${audio.failed.length} failed` : ''}
      </span>
    </div>
  );
}
