/**
 * Voice mode's panel (spec 000 section 4): its state (listening, thinking, speaking) always in view, the way in
 * ("Start voice conversation") and out ("End voice conversation"), "Done speaking", and "Review before sending"
 * (the words go to the composer through the spec's transcriptId). The loop is ./voice-loop.ts.
 * A blocked or missing microphone gets plain advice and Retry here (issue 16); the message box below stays usable.
 */
import { useEffect, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import { player } from './player';
import { CANNOT_LISTEN, MICROPHONE_ADVICE, pickListener, type Listener } from './voice-capture';
import { doneSpeaking, endVoice, startVoice, voice, type VoicePhase } from './voice-loop';

const LABEL: Record<VoicePhase, string> = { off: 'Voice conversation is off', listening: 'Listening…', thinking: 'Thinking…', speaking: 'Speaking…' };

export function VoiceMode({ slug, model }: { slug: string | null; model: string }) {
  const [way, setWay] = useState<Listener | 'checking'>('checking');
  const v = useSnapshot(voice);
  const p = useSnapshot(player);
  const modelRef = useRef(model);
  modelRef.current = model;

  useEffect(() => {
    let live = true;
    void pickListener().then((w) => live && setWay(w));
    return () => {
      live = false;
    };
  }, []);

  if (way === 'checking') return <p className="mode-note" role="status">Checking the microphone and transcription…</p>;
  if (way === null) return <p className="mode-note voice-unavailable" role="status">{CANNOT_LISTEN}</p>;
  return (
    <div className="voice-mode" role="group" aria-label="Voice conversation" data-phase={v.phase}>
      <p className="voice-state" role="status" aria-live="polite">
        {v.phase === 'speaking' && p.status === 'paused' ? 'Paused' : LABEL[v.phase]}
      </p>
      {v.heard && v.phase !== 'off' && <p className="voice-heard muted">You said: “{v.heard}”</p>}
      {v.microphone && v.phase === 'off' && (
        <div className="voice-microphone" role="alert">
          <p className="voice-microphone-title">{MICROPHONE_ADVICE[v.microphone].title}</p>
          <p>{MICROPHONE_ADVICE[v.microphone].text}</p>
          <p className="muted">You can still type your message below.</p>
          <button type="button" className="voice-retry" onClick={() => startVoice(way, slug, () => modelRef.current)}>
            Retry
          </button>
        </div>
      )}
      <div className="voice-actions">
        {v.phase === 'off' && !v.microphone ? (
          <button type="button" className="voice-start" onClick={() => startVoice(way, slug, () => modelRef.current)}>
            Start voice conversation
          </button>
        ) : v.phase === 'off' ? null : (
          <>
            {v.phase === 'listening' && (
              <button type="button" onClick={doneSpeaking}>
                Done speaking
              </button>
            )}
            <button type="button" className="voice-end" onClick={endVoice}>
              End voice conversation
            </button>
          </>
        )}
        <label className="voice-review">
          <input type="checkbox" checked={v.review} onChange={(e) => (voice.review = e.target.checked)} /> Review before sending
        </label>
      </div>
      <p className="muted voice-note">{way === 'gateway' ? 'Your words are transcribed by this server’s transcription service.' : 'Your words are recognised by this browser.'}</p>
    </div>
  );
}
