/**
 * "Share" in the conversation's header menu (issue 20, spec 001 section 2): a dialog to save the conversation as a
 * read-only copy ("Download file"), publish it as a link ("Publish link") or take the link down ("Delete published
 * link"). The engine builds the copy from the conversation's events and keeps the link's owner token; the link opens
 * a read-only page (src/ui/share/SharePage.tsx). "Hide the words" replaces every letter and digit with x.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { ActionResult, ShareFile, ShareLink } from '../../protocol/engine';
import { engine } from '../engine';

function saveText(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export default function ShareDialog({ slug, onClose }: { slug: string; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [redact, setRedact] = useState(false);
  const [link, setLink] = useState<ShareLink | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  useEffect(() => {
    dialog.current?.showModal();
    void engine<ShareLink | null>((api) => api.shareLink(slug)).then(setLink);
  }, [slug]);
  const address = link ? new URL(link.url, location.origin).href : '';

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setStatus(null);
    try {
      await action();
    } catch (e) {
      setStatus({ text: e instanceof Error ? e.message : String(e), error: true });
    } finally {
      setBusy(false);
    }
  }

  const download = () =>
    run(async () => {
      const file = await engine<ShareFile>((api) => api.shareFile(slug, { redact }));
      if (!file.ok) return setStatus({ text: file.error, error: true });
      saveText(file.fileName, file.text);
      setStatus({ text: `Saved ${file.fileName}.`, error: false });
    });
  const publish = () =>
    run(async () => {
      const r = await engine<{ ok: true; link: ShareLink } | { ok: false; error: string }>((api) => api.publishShare(slug, { redact }));
      if (!r.ok) return setStatus({ text: r.error, error: true });
      setLink(r.link);
      setStatus({ text: 'Link published. Anyone with it can read this conversation.', error: false });
    });
  const remove = () =>
    run(async () => {
      const r = await engine<ActionResult>((api) => api.deleteShare(slug));
      if (!r.ok) return setStatus({ text: r.error, error: true });
      setLink(null);
      setStatus({ text: 'The published link was deleted.', error: false });
    });
  const copy = () => void navigator.clipboard.writeText(address).then(() => setStatus({ text: 'Link copied.', error: false }), () => setStatus({ text: 'Could not copy; select the link and copy it.', error: true }));

  return (
    <dialog ref={dialog} className="confirm-dialog share-dialog" aria-labelledby={titleId} onClose={onClose}>
      <div className="confirm-dialog-body">
        <h2 id={titleId}>Share this conversation</h2>
        <p className="muted">A read-only copy of this conversation, with its branches. Your other conversations, settings and balance are not included; nor are images, files and audio.</p>
        <label className="share-redact">
          <input type="checkbox" checked={redact} onChange={(e) => setRedact(e.target.checked)} /> Hide the words (every letter and digit becomes x)
        </label>
        {link && (
          <div className="share-link">
            <label htmlFor={`${titleId}-link`}>Published link{link.redacted ? ' (words hidden)' : ''}</label>
            <div className="share-link-row">
              <input id={`${titleId}-link`} type="text" readOnly value={address} onFocus={(e) => e.currentTarget.select()} />
              <button type="button" onClick={copy}>
                Copy link
              </button>
            </div>
          </div>
        )}
        {status && (
          <p role={status.error ? 'alert' : 'status'} className={status.error ? 'share-error' : 'muted'}>
            {status.text}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" disabled={busy} onClick={() => void download()}>
            Download file
          </button>
          <button type="button" disabled={busy} onClick={() => void publish()}>
            {link ? 'Publish again' : 'Publish link'}
          </button>
          <button type="button" disabled={busy || !link} onClick={() => void remove()}>
            Delete published link
          </button>
          <button type="button" className="confirm-action" onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>
      </div>
    </dialog>
  );
}
