import { useSnapshot } from 'valtio';
import type { ActionResult, Notice, TreeResult } from '../../protocol/engine';
import { engine, useQuery } from '../engine';
import { navigate } from '../router';
import { dismissLocalNotice, view } from '../state';
import { AutoTitleQuestion } from './AutoTitleQuestion';
import { resumeAudio } from '../speech/player';
import { DepositButton } from './DepositDialog';

/** Brings a deleted conversation back (the deletion notice's action). */
function UndoButton({ label, slug, onDone }: { label: string; slug: string; onDone(): void }) {
  return (
    <button
      type="button"
      onClick={() => {
        void engine<ActionResult>((api) => api.restoreConversation(slug)).then(onDone);
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
  return (
    <div className={`notice notice-${notice.tone}`} role={notice.tone === 'red' ? 'alert' : 'status'}>
      <div className="notice-title">{notice.title}</div>
      {notice.text && notice.action?.kind === 'playAudio' ? (
        // The whole text is the click target ("Click here to play the audio response", spec 001 section 4).
        <button type="button" className="notice-text notice-link" onClick={() => (onDismiss(), resumeAudio())}>
          {notice.text}
        </button>
      ) : (
        notice.text && <div className="notice-text">{notice.text}</div>
      )}
      <div className="notice-actions">
        {notice.action?.kind === 'reload' && (
          <button type="button" onClick={() => location.reload()}>
            {notice.action.label}
          </button>
        )}
        {notice.action?.kind === 'undo' && (
          <UndoButton label={notice.action.label} slug={notice.action.slug} onDone={onDismiss} />
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
        <button type="button" className="notice-dismiss" aria-label="Dismiss" onClick={onDismiss}>
          ×
        </button>
      </div>
    </div>
  );
}

export function Notifications() {
  const engineNotices = useQuery({ kind: 'notices' }) ?? [];
  const snap = useSnapshot(view);
  return (
    <section className="notifications" aria-label="Notifications" aria-live="polite">
      {engineNotices.map((n) => (
        <NoticeItem key={n.id} notice={n} onDismiss={() => void engine((api) => api.dismissNotice(n.id))} />
      ))}
      <AutoTitleQuestion />
      {snap.localNotices.map((n) => (
        <NoticeItem key={n.id} notice={n as Notice} onDismiss={() => dismissLocalNotice(n.id)} />
      ))}
    </section>
  );
}
