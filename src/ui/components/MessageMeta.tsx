/**
 * The small line under a finished reply: tokens written and what it cost, in the currency it was paid in (the
 * model's name is in the message header). Nothing for a reply still running or one that cost nothing and counted
 * no tokens. A reply the user stopped says so ("Stopped"), even when it counted nothing.
 */
import type { MessageView } from '../../protocol/engine';
import { exactCost, formatCost } from './cost-format';

export function MessageMeta({ message }: { message: MessageView }) {
  if (message.role !== 'assistant' || message.status === 'pending' || message.status === 'streaming') return null;
  const parts: string[] = [];
  if (message.outputTokens) parts.push(`${message.outputTokens.toLocaleString('en-US')} tokens`);
  if (message.cost) parts.push(formatCost(message.cost, message.paymentSource));
  else if (message.outputTokens) parts.push('free');
  const stopped = message.stopped === true;
  if (parts.length === 0 && !stopped) return null;
  return (
    <p className="message-meta" aria-label="Reply details" title={message.cost ? `Cost ${exactCost(message.cost, message.paymentSource)}` : undefined}>
      {parts.length > 0 && <span>{parts.join(' · ')}</span>}
      {stopped && (
        <span className="message-stopped" title="You stopped this reply before it finished">
          Stopped
        </span>
      )}
    </p>
  );
}
