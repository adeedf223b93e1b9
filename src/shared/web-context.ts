/**
 * What a user message with scraped pages or web search results sends to the model: its prompt, then the search
 * results numbered [1]..[n] (the reply cites them by number, and the view links each number to its page), then
 * each scraped page's text. Built from the stored message, so a regenerated or continued reply sees exactly what
 * the first one saw, without searching or scraping again.
 */
import type { ChatMessage } from '../protocol/api';
import type { MessageRow, ScrapedContent, WebSourceRecord } from '../events/model';
import type { MessageView } from '../protocol/engine';

export const CITATION_INSTRUCTIONS =
  'Web search results for the message above follow, numbered. Use them where they help, and cite each one you use ' +
  'with its number in square brackets, like [1] or [2][3], right after the sentence it supports. Do not invent numbers.';

export function sourcesBlock(sources: readonly WebSourceRecord[]): string {
  const lines = sources.map((s, i) => `[${i + 1}] ${s.title}\n${s.url}\n${s.snippet}`);
  return `${CITATION_INSTRUCTIONS}\n\n${lines.join('\n\n')}`;
}

export function scrapedBlock(pages: readonly ScrapedContent[]): string {
  return pages.map((p) => `Content of the web page "${p.title}" (${p.url}), scraped for this message:\n\n${p.content}`).join('\n\n---\n\n');
}

/** The extra text a user message carries for the model, or '' when it has none. */
export function webContextOf(m: Pick<MessageRow, 'scrapedContent' | 'webSearch'>): string {
  const parts: string[] = [];
  if (m.webSearch && m.webSearch.sources.length > 0) parts.push(sourcesBlock(m.webSearch.sources));
  if (m.scrapedContent && m.scrapedContent.length > 0) parts.push(scrapedBlock(m.scrapedContent));
  return parts.join('\n\n---\n\n');
}

/** Adds `extra` after a message's content (a string, or parts: a text part at the end). */
export function appendContext(content: ChatMessage['content'], extra: string): ChatMessage['content'] {
  if (extra === '') return content;
  if (typeof content === 'string') return content === '' ? extra : `${content}\n\n---\n\n${extra}`;
  return [...content, { type: 'text', text: extra }];
}

/** A user message's content with its web context. */
export function userContent(m: MessageRow): ChatMessage['content'] {
  return appendContext(m.prompt, webContextOf(m));
}

/** The request's last user message gains `extra` (the search results that just arrived). */
export function withContextOnLastUser(messages: readonly ChatMessage[], extra: string): ChatMessage[] {
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (m && m.role === 'user') {
      out[i] = { ...m, content: appendContext(m.content, extra) };
      break;
    }
  }
  return out;
}

/** Each reply to a message that searched the web gets that search's sources (what its [n] cite). */
export function withCitations(messages: MessageView[]): MessageView[] {
  let any = false;
  for (const m of messages) if (m.webSearch) any = true;
  if (!any) return messages;
  const byId = new Map(messages.map((m) => [m.id, m]));
  return messages.map((m) => {
    if (m.role !== 'assistant' || m.parentMessageId === null) return m;
    const sources = byId.get(m.parentMessageId)?.webSearch?.sources;
    return sources && sources.length > 0 ? { ...m, citations: sources } : m;
  });
}
