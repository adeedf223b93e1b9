/**
 * Voice mode (spec 000 section 4): talk, transcribe, reply, speak, in a loop with a visible state (listening,
 * thinking, speaking) and a way out ("End voice conversation"). Each turn is sent in the Voice mode (a chat turn
 * with the conversation's text model); the reply is read aloud with the preferred speech model, then it listens
 * again. "Review before sending" hands the words to the composer instead, through session storage and the spec's
 * transcriptId parameter.
 */
import { useEffect, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { ConversationView, SendMessageResult } from '../../protocol/engine';
import { connection, engine } from '../engine';
import { navigate } from '../router';
import { showLocalNotice } from '../state';
import { composer } from '../composer-state';
import { player, readAloud, stopAudio } from './player';
import { CANNOT_LISTEN, listen, pickListener, type Listener, type Utterance } from './voice-capture';

type Phase = 'off' | 'listening' | 'thinking' | 'speaking';
const LABEL: Record<Phase, string> = { off: 'Voice conversation is off', listening: 'Listening…', thinking: 'Thinking…', speaking: 'Speaking…' };

/** Resolves with the reply to `userMessageId` once it is finished (done or failed). */
function replyTo(slug: string, userMessageId: number): Promise<number | null> {
  return new Promise((resolve) => {
    let stop: (() => void) | null = null;
    let settled = false;
    stop = connection.subscribe({ kind: 'conversation', slug }, (view: ConversationView | null) => {
      if (settled || !view) return;
      const user = view.messages.find((m) => m.id === userMessageId);
      const reply = view.messages.find((m) => m.parentMessageId === userMessageId && m.role === 'assistant');
      const finished = reply && reply.status !== 'pending' && reply.status !== 'streaming';
      if (finished || user?.hasError) {
        settled = true;
        setTimeout(() => stop?.(), 0);
        resolve(finished && !reply.hasError ? reply.id : null);
      }
    });
  });
}

/** Resolves when the player has finished the message (idle again). */
function spoken(): Promise<void> {
  return new Promise((resolve) => {
    const t = setInterval(() => {
      if (player.status === 'idle') {
        clearInterval(t);
        resolve();
      }
    }, 200);
  });
}

export function VoiceMode({ slug, model }: { slug: string | null; model: string }) {
  const [phase, setPhase] = useState<Phase>('off');
  const [way, setWay] = useState<Listener | 'checking'>('checking');
  const [heard, setHeard] = useState('');
  const [review, setReview] = useState(false);
  const utterance = useRef<Utterance | null>(null);
  const active = useRef(false);
  const target = useRef<string | null>(slug);
  target.current = slug ?? target.current;
  const p = useSnapshot(player);

  useEffect(() => {
    void pickListener().then(setWay);
    return () => {
      active.current = false;
      utterance.current?.cancel();
    };
  }, []);

  async function loop(w: 'gateway' | 'browser'): Promise<void> {
    while (active.current) {
      setPhase('listening');
      const u = listen(w);
      utterance.current = u;
      let text = '';
      try {
        text = (await u.text).trim();
      } catch (e) {
        showLocalNotice({ title: 'Could not hear you', text: e instanceof Error ? e.message : String(e), tone: 'red', durationMs: 8000 });
        break;
      }
      utterance.current = null;
      if (!active.current) break;
      if (text === '') continue;
      setHeard(text);
      if (review) {
        // Hand the words to the composer (spec 000 section 2: transcriptId, a key into session storage).
        const key = `transcript-${crypto.randomUUID()}`;
        sessionStorage.setItem(key, text);
        active.current = false;
        composer.mode = 'chat';
        navigate(`/conversation/${target.current ?? 'new'}?mode=chat&transcriptId=${encodeURIComponent(key)}`);
        break;
      }
      setPhase('thinking');
      const sent = await engine<SendMessageResult>((api) => api.sendMessage({ slug: target.current, prompt: text, model, mode: 'voice' }));
      if (!sent.ok) {
        if (!sent.notified) showLocalNotice({ title: sent.error, text: '', tone: 'red', durationMs: 8000 });
        break;
      }
      if (target.current !== sent.slug) {
        target.current = sent.slug;
        navigate(`/conversation/${sent.slug}?mode=voice`, { replace: true });
      }
      const replyId = await replyTo(sent.slug, sent.userMessageId);
      if (!active.current || replyId === null) break;
      setPhase('speaking');
      await readAloud(replyId);
      await spoken();
    }
    active.current = false;
    setPhase('off');
  }

  function start(): void {
    if (way !== 'gateway' && way !== 'browser') return;
    active.current = true;
    setHeard('');
    void loop(way);
  }

  function end(): void {
    active.current = false;
    utterance.current?.cancel();
    utterance.current = null;
    stopAudio();
    setPhase('off');
  }

  if (way === 'checking') return <p className="mode-note" role="status">Checking the microphone and transcription…</p>;
  if (way === null) return <p className="mode-note voice-unavailable" role="status">{CANNOT_LISTEN}</p>;
  return (
    <div className="voice-mode" role="group" aria-label="Voice conversation" data-phase={phase}>
      <p className="voice-state" role="status" aria-live="polite">
        {phase === 'speaking' && p.status === 'paused' ? 'Paused' : LABEL[phase]}
      </p>
      {heard && phase !== 'off' && <p className="voice-heard muted">You said: “{heard}”</p>}
      <div className="voice-actions">
        {phase === 'off' ? (
          <button type="button" className="voice-start" onClick={start}>
            Start voice conversation
          </button>
        ) : (
          <>
            {phase === 'listening' && (
              <button type="button" onClick={() => utterance.current?.done()}>
                Done speaking
              </button>
            )}
            <button type="button" className="voice-end" onClick={end}>
              End voice conversation
            </button>
          </>
        )}
        <label className="voice-review">
          <input type="checkbox" checked={review} onChange={(e) => setReview(e.target.checked)} /> Review before sending
        </label>
      </div>
      <p className="muted voice-note">{way === 'gateway' ? 'Your words are transcribed by this server’s transcription service.' : 'Your words are recognised by this browser.'}</p>
    </div>
  );
}
