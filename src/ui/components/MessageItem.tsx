import { Suspense, lazy, memo, useState } from 'react';
import type { MessageView } from '../../protocol/engine';

// Markdown, GFM, math and KaTeX are heavy: loaded on first use, not with the page.
const Markdown = lazy(() => import('./Markdown'));

function MessageMenu({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const [copied, setCopied] = useState(false);
  return (
    <div className="message-menu">
      <button type="button" aria-label="Message actions" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        ⋯
      </button>
      {open && (
        <div role="menu" className="menu" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              void navigator.clipboard.writeText(text).then(() => {
                setCopied(true);
                setTimeout(() => setCopied(false), 1500);
              });
              setOpen(false);
            }}
          >
            {copied ? 'Copied' : 'Copy text'}
          </button>
        </div>
      )}
    </div>
  );
}

/**
 * Messages arrive as fresh objects on every update (they are cloned across the worker boundary), so identity says
 * nothing: compare what is shown, so that a streaming reply re-renders alone, not every message of a long chat.
 */
function sameMessage(a: MessageItemProps, b: MessageItemProps): boolean {
  const x = a.message;
  const y = b.message;
  return (
    a.modelName === b.modelName &&
    x.id === y.id &&
    x.text === y.text &&
    x.thinking === y.thinking &&
    x.status === y.status &&
    x.hasError === y.hasError &&
    x.error === y.error &&
    x.interrupted === y.interrupted &&
    x.isPartial === y.isPartial &&
    x.model === y.model &&
    x.role === y.role
  );
}

interface MessageItemProps {
  message: MessageView;
  /** Display name of the message's model (the page reads the catalogue once for all messages). */
  modelName: string;
}

export const MessageItem = memo(function MessageItem({ message, modelName }: MessageItemProps) {
  const status = message.hasError || message.interrupted ? 'error' : message.status;
  const isAssistant = message.role === 'assistant';
  return (
    <article className={`message message-${message.role}`} data-role={message.role} data-status={status} data-model={message.model} aria-label={isAssistant ? 'Assistant message' : 'Your message'}>
      <header className="message-header">
        <span className="message-author">{isAssistant ? modelName : 'You'}</span>
        <MessageMenu text={message.text} />
      </header>
      {isAssistant && message.thinking && (
        <details className="thinking" open={status === 'streaming' && message.text === ''}>
          <summary>Thinking</summary>
          <div className="thinking-text">{message.thinking}</div>
        </details>
      )}
      <div className="message-body">
        {isAssistant ? (
          status === 'pending' ? (
            <span className="typing" aria-label="Waiting for the reply">
              <span />
              <span />
              <span />
            </span>
          ) : (
            <Suspense fallback={<div className="plain">{message.text}</div>}>
              <Markdown text={message.text} />
            </Suspense>
          )
        ) : (
          <div className="plain">{message.text}</div>
        )}
      </div>
      {message.isPartial && <p className="message-note">Partial reply: the stream ended early.</p>}
      {(message.hasError || message.interrupted) && message.error && (
        <p className="message-error" role="note">
          {message.error}
        </p>
      )}
    </article>
  );
}, sameMessage);
