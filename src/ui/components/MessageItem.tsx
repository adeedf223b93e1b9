import { autoReplyLabel } from '../../protocol/auto-model';
import { Suspense, lazy, memo, useContext, useState, type CSSProperties } from 'react';
import { ReadOnlyContext } from './read-only';
import type { MessageView } from '../../protocol/engine';
import { AlternativesNav } from './AlternativesNav';
import { MessageActions, tree } from './MessageActions';
import { MessageMeta } from './MessageMeta';
import { MessageMedia } from '../media/MessageMedia';
import { ScrapedChips } from './web/ScrapedChips';
import { MessageFiles } from './AttachmentFiles';
import { Sources } from './web/Sources';
import { MessageAudio } from '../speech/MessageAudio';
import { ErrorBoundary } from './ErrorBoundary';
import { PlainText, UnformattedText } from './PlainText';

// Markdown, GFM, math and KaTeX are heavy: loaded on first use, not with the page.
const Markdown = lazy(() => import('./Markdown'));

/**
 * Messages arrive as fresh objects on every update (they are cloned across the worker boundary), so identity says
 * nothing: compare what is shown, so that a streaming reply re-renders alone, not every message of a long chat.
 */
function sameMessage(a: MessageItemProps, b: MessageItemProps): boolean {
  const x = a.message;
  const y = b.message;
  return (
    a.modelName === b.modelName &&
    a.last === b.last &&
    x.id === y.id &&
    x.text === y.text &&
    x.thinking === y.thinking &&
    x.status === y.status &&
    x.hasError === y.hasError &&
    x.error === y.error &&
    x.interrupted === y.interrupted &&
    x.stopped === y.stopped &&
    x.sentiment === y.sentiment &&
    x.isPartial === y.isPartial &&
    x.model === y.model &&
    x.role === y.role &&
    x.cost === y.cost &&
    x.outputTokens === y.outputTokens &&
    x.updatedAt === y.updatedAt &&
    x.canContinue === y.canContinue &&
    x.alternatives?.index === y.alternatives?.index &&
    x.alternatives?.count === y.alternatives?.count &&
    x.citations?.length === y.citations?.length &&
    x.scrapedContent?.length === y.scrapedContent?.length &&
    x.imagePrompt === y.imagePrompt &&
    x.images?.length === y.images?.length &&
    x.files?.length === y.files?.length &&
    x.audio?.chunks.filter(Boolean).length === y.audio?.chunks.filter(Boolean).length &&
    x.audio?.key === y.audio?.key
  );
}

interface MessageItemProps {
  message: MessageView;
  /** Display name of the message's model (the page reads the catalogue once for all messages). */
  modelName: string;
  /** In the conversation's last row: its actions always show. */
  last?: boolean;
}

/** Up to two letters for a model's avatar: the first of its first two words ("Claude Sonnet" -> "CS"). */
export function initials(name: string): string {
  const words = name.split(/[\s/_:-]+/).filter((w) => /^[\p{L}\p{N}]/u.test(w));
  const letters = words.slice(0, 2).map((w) => [...w][0] ?? '');
  return letters.join('').toUpperCase() || '?';
}

/** A hue from the model's id, so each model keeps its colour across replies and reloads. */
function hue(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) % 360;
  return h;
}

function Avatar({ model, name }: { model: string; name: string }) {
  return (
    <span className="message-avatar" aria-hidden="true" style={{ '--avatar-hue': hue(model) } as CSSProperties}>
      {initials(name)}
    </span>
  );
}

function EditForm({ initial, onSave, onCancel }: { initial: string; onSave: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState(initial);
  return (
    <form
      className="message-edit"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(text);
      }}
    >
      <textarea
        aria-label="Edit message"
        value={text}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            onSave(text);
          }
        }}
      />
      <div className="message-edit-buttons">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={text.trim() === ''}>
          Save
        </button>
      </div>
    </form>
  );
}

function MessageContent({ message, modelName, last = false }: MessageItemProps) {
  const status = message.hasError || message.interrupted ? 'error' : message.status;
  const isAssistant = message.role === 'assistant';
  const [editing, setEditing] = useState(false);
  const [copied, setCopied] = useState(false);
  // A read-only copy (share page, Inspector): the branch navigator works in the view only; no other action.
  const readOnly = useContext(ReadOnlyContext);
  const slug = message.conversationSlug;
  const copy = () =>
    void navigator.clipboard.writeText(message.text).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  return (
    <article
      className={`message message-${message.role}`}
      data-role={message.role}
      data-status={status}
      data-model={message.model}
      data-last={last || undefined}
      id={`message-${message.id}`}
      aria-label={isAssistant ? 'Assistant message' : 'Your message'}
    >
      <header className="message-header">
        {isAssistant && <Avatar model={message.model} name={modelName} />}
        <span className="message-author">
          {isAssistant ? (message.isAutoModel === true ? autoReplyLabel(modelName) : modelName) : 'You'}
          {message.sentiment === 'thankful' && (
            <span className="message-sentiment" role="img" aria-label="Thankful" title="You thanked the model">
              {' ♥'}
            </span>
          )}
        </span>
      </header>
      {isAssistant && message.thinking && (
        <details className="thinking" open={status === 'streaming' && message.text === ''}>
          <summary>Thinking</summary>
          <div className="thinking-text">{message.thinking}</div>
        </details>
      )}
      <div className="message-body">
        {editing ? (
          <EditForm
            initial={message.text}
            onCancel={() => setEditing(false)}
            onSave={(text) => {
              if (text.trim() === '') return;
              setEditing(false);
              void tree((api) => api.editMessage(slug, message.id, text));
            }}
          />
        ) : isAssistant ? (
          status === 'pending' ? (
            <span className="typing" aria-label="Waiting for the reply">
              <span />
              <span />
              <span />
            </span>
          ) : (
            // A reply that cannot be formatted (whatever goes wrong in the Markdown) shows as plain text with a note.
            <ErrorBoundary resetKey={message.text} fallback={<UnformattedText text={message.text} />}>
              <Suspense fallback={<PlainText text={message.text} />}>
                <Markdown text={message.text} cacheKey={status === 'done' ? `${message.id}:${message.updatedAt}` : undefined} citations={message.citations} />
              </Suspense>
            </ErrorBoundary>
          )
        ) : (
          <PlainText text={message.text} />
        )}
        {message.role === 'user' && <MessageFiles message={message} />}
        {message.scrapedContent && <ScrapedChips label="Scraped pages" pages={message.scrapedContent} />}
        {message.audio && status !== 'pending' && <MessageAudio messageId={message.id} audio={message.audio} />}
        {message.webSearch && <p className="web-searched muted">{`Searched the web: ${message.webSearch.sources.length} source${message.webSearch.sources.length === 1 ? '' : 's'}${message.webSearch.cost > 0 ? ` · $${message.webSearch.cost}` : ''}`}</p>}
      </div>
      <MessageMedia message={message} prompt={message.role === 'user' ? message.text : (message.imagePrompt ?? '')} />
      {isAssistant && message.citations && status !== 'pending' && <Sources sources={message.citations} />}
      {!editing && (
        <div className="message-bar">
          {message.alternatives && (
            <AlternativesNav
              index={message.alternatives.index}
              count={message.alternatives.count}
              disabled={status === 'pending' || status === 'streaming'}
              onSwitch={(direction) => (readOnly ? readOnly.switchBranch(message.id, direction) : void tree((api) => api.switchBranch(slug, message.id, direction)))}
            />
          )}
          <MessageMeta message={message} />
          {!readOnly && <MessageActions message={message} status={status} copied={copied} onCopy={copy} onEdit={() => setEditing(true)} />}
        </div>
      )}
      {message.isPartial && <p className="message-note">Partial reply: the stream ended early.</p>}
      {(message.hasError || message.interrupted) && message.error && (
        <p className="message-error" role="note">
          {message.error}
        </p>
      )}
      {message.canContinue && !readOnly && (
        <div className="message-footer">
          <button type="button" onClick={() => void tree((api) => api.continueReply(slug, message.id))}>
            Continue
          </button>
        </div>
      )}
    </article>
  );
}

/**
 * A message in the list, behind an error boundary: should anything of it fail to render, it shows as plain text
 * with a note, and the rest of the conversation goes on.
 */
export const MessageItem = memo(function MessageItem({ message, modelName, last }: MessageItemProps) {
  const resetKey = `${message.id}:${message.updatedAt}:${message.status}:${message.text.length}`;
  return (
    <ErrorBoundary resetKey={resetKey} fallback={<BrokenMessage message={message} modelName={modelName} />}>
      <MessageContent message={message} modelName={modelName} last={last} />
    </ErrorBoundary>
  );
}, sameMessage);

function BrokenMessage({ message, modelName }: MessageItemProps) {
  const isAssistant = message.role === 'assistant';
  return (
    <article
      className={`message message-${message.role}`}
      data-role={message.role}
      data-status={message.hasError || message.interrupted ? 'error' : message.status}
      data-model={message.model}
      id={`message-${message.id}`}
      aria-label={isAssistant ? 'Assistant message' : 'Your message'}
    >
      <header className="message-header">
        <span className="message-author">{isAssistant ? modelName : 'You'}</span>
      </header>
      <div className="message-body">
        <UnformattedText text={message.text} />
      </div>
    </article>
  );
}
