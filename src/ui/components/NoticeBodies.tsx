/**
 * What the notices show (./Notifications.tsx): each notice with its actions (Undo, Resend, Deposit, play the
 * audio, ...) and the automatic titles question. A chunk of its own, loaded after the first paint
 * (./lazy-chunks.ts) or when the first notice comes, whichever is first: the first page carries the stack only.
 */
import type * as Comlink from 'comlink';
import type { ActionResult, EngineApi, Notice, TreeResult } from '../../protocol/engine';
import { engine } from '../engine';
import { navigate, matchRoute } from '../router';
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

export function NoticeItem({ notice, onDismiss }: { notice: Notice; onDismiss(): void }) {
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

/** The automatic titles question (./AutoTitleQuestion.tsx decides when it shows). */
export function AutoTitleBody() {
  async function answer(yes: boolean) {
    await engine((api) => api.setPreferences(yes ? { autoGenerateTitle: true, hasBeenAskedAboutAutoTitle: true } : { hasBeenAskedAboutAutoTitle: true }));
    const route = matchRoute(location.pathname);
    if (yes && route.name === 'conversation' && route.slug !== 'new') await engine<ActionResult>((api) => api.generateTitle(route.slug));
  }

  return (
    <div className="notice auto-title" role="dialog" aria-label="Automatic titles" aria-describedby="auto-title-text">
      <div className="notice-title">Name conversations automatically?</div>
      <div className="notice-text" id="auto-title-text">
        A short title is written from the start of each conversation, replacing its first words.
      </div>
      <div className="notice-actions">
        <button type="button" onClick={() => void answer(true)}>
          Yes
        </button>
        <button type="button" onClick={() => void answer(false)}>
          No
        </button>
      </div>
    </div>
  );
}
