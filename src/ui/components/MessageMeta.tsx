/**
 * The small line under a finished reply: tokens written and what it cost, in the currency it was paid in (the
 * model's name is in the message header). Nothing for a reply still running or one that cost nothing and counted
 * no tokens.
 */
import type { MessageView } from '../../protocol/engine';
import { exactCost, formatCost } from './cost-format';

export function MessageMeta({ message }: { message: MessageView }) {
  if (message.role !== 'assistant' || message.status === 'pending' || message.status === 'streaming') return null;
  const parts: string[] = [];
  if (message.outputTokens) parts.push(`${message.outputTokens.toLocaleString('en-US')} tokens`);
  if (message.cost) parts.push(formatCost(message.cost, message.paymentSource));
  else if (message.outputTokens) parts.push('free');
  if (parts.length === 0) return null;
  return (
    <p className="message-meta" aria-label="Reply details" title={message.cost ? `Cost ${exactCost(message.cost, message.paymentSource)}` : undefined}>
      {parts.join(' · ')}
    </p>
  );
}
