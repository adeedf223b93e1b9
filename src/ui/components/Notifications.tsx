import { useEffect, useState, type ReactNode } from 'react';
import { useSnapshot } from 'valtio';
import type * as Comlink from 'comlink';
import type { ActionResult, EngineApi, Notice, TreeResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { navigate } from '../router';
import { dismissLocalNotice, view } from '../state';
import { AutoTitleQuestion } from './AutoTitleQuestion';
import { loadPlayer } from '../speech/player-loader';
import { DepositButton } from './DepositButton';

/** Plays the blocked reply (a click, so within the gesture's activation; the player's chunk is already here). */
function resumeAudio(): void {
  void loadPlayer()
    .then((m) => m.resumeAudio())
    .catch(() => undefined);
}

/** An Undo that asks the engine to bring back what a notice says was deleted, then closes the notice. */
function UndoButton({ label, undo, onDone }: { label: string; undo(api: Comlink.Remote<EngineApi>): Promise<ActionResult>; onDone(): void }) {
  return (
    <button
      type="button"
      onClick={() => {
        void engine<ActionResult>(undo).then(onDone);
      }}
    >
      {label}
    </button>
  );
}

/** Brings a deleted message back (the "Message deleted" notice's action). */
function UndoMessageButton({ label, slug, deletionId, onDone }: { label: string; slug: string; deletionId: string; onDone(): void }) {
  return (
    <button
      type="button"
      onClick={() => {
        void engine<TreeResult>((api) => api.restoreMessage(slug, deletionId)).then(onDone);
      }}
    >
      {label}
    </button>
  );
}

/** Sends a failed prompt again (the context memory notice's Resend). */
function ResendButton({ label, slug, messageId, onDone }: { label: string; slug: string; messageId: number; onDone(): void }) {
  return (
    <button
      type="button"
      onClick={() => {
        onDone();
        void engine<TreeResult>((api) => api.retryMessage(slug, messageId));
      }}
    >
      {label}
    </button>
  );
}

function NoticeItem({ notice, onDismiss }: { notice: Notice; onDismiss(): void }) {
  // Compact: the title and text on the left, the close button inline at the top right, actions under the text.
  return (
    <div className={`notice notice-${notice.tone}`} role={notice.tone === 'red' ? 'alert' : 'status'}>
      <div className="notice-body">
        <div className="notice-title">{notice.title}</div>
        {notice.text && notice.action?.kind === 'playAudio' ? (
          // The whole text is the click target ("Click here to play the audio response", spec 001 section 4).
          <button type="button" className="notice-text notice-link" onClick={() => (onDismiss(), resumeAudio())}>
            {notice.text}
          </button>
        ) : (
          notice.text && <div className="notice-text">{notice.text}</div>
        )}
        {notice.action && <NoticeAction notice={notice} onDismiss={onDismiss} />}
      </div>
      <button type="button" className="notice-dismiss" aria-label="Dismiss" title="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}

function NoticeAction({ notice, onDismiss }: { notice: Notice; onDismiss(): void }) {
  const action = notice.action;
  return (
    <div className="notice-actions">
      {notice.action?.kind === 'reload' && (
        <button type="button" onClick={() => location.reload()}>
          {notice.action.label}
        </button>
      )}
      {action?.kind === 'undo' && <UndoButton label={action.label} undo={(api) => api.restoreConversation(action.slug)} onDone={onDismiss} />}
      {action?.kind === 'undoMany' && <UndoButton label={action.label} undo={(api) => api.restoreConversations(action.slugs)} onDone={onDismiss} />}
      {notice.action?.kind === 'undoMessage' && (
        <UndoMessageButton label={notice.action.label} slug={notice.action.slug} deletionId={notice.action.deletionId} onDone={onDismiss} />
      )}
      {notice.action?.kind === 'resend' && (
        <ResendButton label={notice.action.label} slug={notice.action.slug} messageId={notice.action.messageId} onDone={onDismiss} />
      )}
      {notice.action?.kind === 'deposit' && (
        <button
          type="button"
          onClick={() => {
            onDismiss();
            navigate('/wallet?deposit=open');
          }}
        >
          {notice.action.label}
        </button>
      )}
      {notice.action?.kind === 'depositNow' && <DepositButton openInitially />}
      {notice.action?.kind === 'playAudio' && (
        <button
          type="button"
          onClick={() => {
            onDismiss();
            resumeAudio();
          }}
        >
          {notice.action.label}
        </button>
      )}
      {notice.action?.kind === 'wallet' && (
        <button
          type="button"
          onClick={() => {
            onDismiss();
            navigate('/wallet');
          }}
        >
          {notice.action.label}
        </button>
      )}
    </div>
  );
}

/** At most this many notices show at once; the rest wait behind "+N more" (issue 16). */
export const MAX_VISIBLE_NOTICES = 3;

/**
 * The notices float over the page (a stack at the bottom right on a wide screen, above the composer on a phone):
 * they never move the layout. The newest show first; beyond three, "+N more" opens the rest.
 */
export function Notifications({ children }: { children?: ReactNode }) {
  const engineNotices = useQuery({ kind: 'notices' }) ?? [];
  const snap = useSnapshot(view);
  const [expanded, setExpanded] = useState(false);
  const all: { notice: Notice; dismiss(): void }[] = [
    ...engineNotices.map((n) => ({ notice: n, dismiss: () => void engine((api) => api.dismissNotice(n.id)) })),
    ...snap.localNotices.map((n) => ({ notice: n as Notice, dismiss: () => dismissLocalNotice(n.id) })),
  ];
  const shown = expanded ? all : all.slice(-MAX_VISIBLE_NOTICES);
  const hidden = all.length - shown.length;
  useEffect(() => {
    if (all.length <= MAX_VISIBLE_NOTICES) setExpanded(false);
  }, [all.length]);
  return (
    <div className="overlay-stack">
      {children}
      <section className="notifications" aria-label="Notifications" aria-live="polite">
        <AutoTitleQuestion />
        {hidden > 0 && (
          <button type="button" className="notice-more" aria-expanded={false} onClick={() => setExpanded(true)}>
            +{hidden} more
          </button>
        )}
        {shown.map(({ notice, dismiss }) => (
          <NoticeItem key={notice.id} notice={notice} onDismiss={dismiss} />
        ))}
        {expanded && all.length > MAX_VISIBLE_NOTICES && (
          <button type="button" className="notice-more" aria-expanded onClick={() => setExpanded(false)}>
            Show fewer
          </button>
        )}
      </section>
    </div>
  );
}
