/**
 * The composer's token counts (spec 000 section 9): the conversation's sent messages as the model reads them, the
 * text being written and the composer's files. A chunk of its own, loaded by the first count (400 ms after the
 * page opens or the last keystroke): the history builder it needs is not on the first page.
 */
import type { MessageView } from '../../protocol/engine';
import { toChatMessage } from '../../shared/history';
import { countTokens, type TokenCounts } from '../../shared/tokens';

export function composerTokens(messages: readonly MessageView[], value: string, maxTokens: number, fileTokens: number): TokenCounts {
  const history = messages.filter((m) => m.status === 'done' && !m.hasError).map((m) => ({ content: toChatMessage(m).content }));
  const c = countTokens(history, value, 0, maxTokens);
  return { ...c, input: c.input + fileTokens, total: c.total + fileTokens };
}
