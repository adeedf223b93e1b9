/**
 * The actions under a message (issue 16 item 8): Copy, Regenerate (a reply), Edit (a prompt) and Read aloud inline
 * as icon buttons (the branch navigator stands beside them, always shown), and "Message actions" (⋯) for the rest: Duplicate from here, Retry,
 * Add to scratchpad, Delete (with Undo, raised by the engine). The row shows on hover or focus, always on a touch
 * screen and under the last message (CSS, styles/tree.css); hidden it keeps its place, so nothing moves.
 */
import { Check, Copy, Pencil, RefreshCw, Volume2 } from 'lucide-react';
import type { MessageView, TreeResult } from '../../protocol/engine';
import { engine } from '../engine';
import { navigate } from '../router';
import { addToScratchpad } from '../tools-state';
import { readAloud } from '../speech/player';
import { IconButton } from './IconButton';
import { MessageMenu, type MessageAction } from './MessageMenu';

/** Runs a tree command; the engine raises the spec's notice for a refusal, so nothing more is shown here. */
export function tree(fn: Parameters<typeof engine<TreeResult>>[0]): Promise<TreeResult> {
  return engine<TreeResult>(fn);
}

/** What the "Message actions" menu offers, by role and state: every action (DESIGN UI contract, "message actions"). */
function menuActions(message: MessageView, finished: boolean, copy: () => void, edit: () => void): MessageAction[] {
  const { conversationSlug: slug, id } = message;
  const out: MessageAction[] = [{ label: 'Copy text', run: copy }];
  if (message.role === 'assistant' && finished) out.push({ label: 'Regenerate', run: () => void tree((api) => api.regenerate(slug, id)) });
  if (message.role === 'user' && finished) out.push({ label: 'Edit', run: edit });
  if (!finished) return out;
  out.push({
    label: 'Duplicate from here',
    run: () =>
      void tree((api) => api.duplicateConversation(slug, id)).then((r) => {
        if (r.ok && r.slug) navigate(`/conversation/${r.slug}`);
      }),
  });
  const failed = message.hasError === true || message.interrupted === true || (message.role === 'assistant' && message.isPartial === true);
  if (failed) out.push({ label: 'Retry', run: () => void tree((api) => api.retryMessage(slug, id)) });
  // The scratchpad (issue 8 item 6): the message's text as an entry of its conversation's scratchpad.
  if (message.text.trim() !== '') out.push({ label: 'Add to scratchpad', run: () => void addToScratchpad(slug, message.text, 'message') });
  // Spec 001 section 4: the message's text (thinking stripped) spoken with the preferred speech model.
  if (!message.hasError && message.text.trim() !== '') out.push({ label: 'Read aloud', run: () => void readAloud(id) });
  out.push({ label: 'Delete', run: () => void tree((api) => api.deleteMessage(slug, id)), danger: true });
  return out;
}

interface Props {
  message: MessageView;
  status: string;
  copied: boolean;
  onCopy: () => void;
  onEdit: () => void;
}

export function MessageActions({ message, status, copied, onCopy, onEdit }: Props) {
  const { conversationSlug: slug, id } = message;
  const finished = status !== 'pending' && status !== 'streaming';
  const speakable = finished && !message.hasError && message.text.trim() !== '';
  const menu = menuActions(message, finished, onCopy, onEdit);
  return (
    <div className="message-actions" role="group" aria-label="Actions">
      {message.text !== '' && <IconButton label="Copy text" icon={copied ? Check : Copy} onClick={onCopy} />}
      {copied && (
        <span role="status" className="message-copied">
          Copied
        </span>
      )}
      {message.role === 'assistant' && finished && <IconButton label="Regenerate" icon={RefreshCw} onClick={() => void tree((api) => api.regenerate(slug, id))} />}
      {message.role === 'user' && finished && <IconButton label="Edit" icon={Pencil} onClick={onEdit} />}
      {speakable && <IconButton label="Read aloud" icon={Volume2} onClick={() => void readAloud(id)} />}
      {menu.length > 0 && <MessageMenu actions={menu} />}
    </div>
  );
}
