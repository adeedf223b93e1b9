/**
 * What an export is made from, and the checks every format shares. Pure: the engine command (src/worker/rooms/export/
 * commands.ts) gathers the conversation and the ordered messages of its active branch from the same live query the
 * view renders, and every formatter here works on that list alone.
 */
import type { ChatPart } from '../../../protocol/api';
import type { ExportFormat } from '../../../protocol/engine';
import type { Role } from '../../../events/model';
import { EXPORT_NOTICE } from '../../../shared/messages';
import { autoReplyLabel } from '../../../protocol/auto-model';

/** One image of a message as the spec's exported message carries it: inline data or an address. */
export type ExportImage = { b64_json: string } | { url: string };

/** The fields of a message an export reads (a MessageView fits; fields the rows do not carry yet are optional). */
export interface ExportMessageSource {
  id: number;
  role: Role;
  /** Milliseconds. */
  timestamp: number;
  model: string;
  prompt: string | ChatPart[];
  /** The text as the view shows it (the live text of a streaming reply); falls back to the prompt's text. */
  text?: string;
  images?: ReadonlyArray<{ b64_json?: string | null; url?: string | null }>;
  inputTokens?: number;
  outputTokens?: number;
  parentMessageId?: number | null;
  isActiveBranch?: boolean;
  visible?: boolean;
  /** A reply to a message that searched the web: the numbered sources its [n] cite (MessageView.citations). */
  citations?: ReadonlyArray<{ title: string; url: string }>;
  /** Spec 000 section 3: the user chose Auto and the engine picked `autoModelSelectedModel` (also `model`). */
  isAutoModel?: boolean;
  autoModelSelectedModel?: string;
}

export interface ExportSource {
  conversation: { name: string; slug: string };
  /** In reading order: the active branch, as the conversation page shows it. */
  messages: readonly ExportMessageSource[];
  /** Milliseconds; passed in so a formatter's output depends on its input alone. */
  exportedAt: number;
}

export const EXPORT_MIME: Record<ExportFormat, string> = {
  markdown: 'text/markdown;charset=utf-8',
  json: 'application/json',
  pdf: 'application/pdf',
};
const EXTENSION: Record<ExportFormat, string> = { markdown: 'md', json: 'json', pdf: 'pdf' };

/**
 * The messages of the active branch only. The conversation query already presents the active path; this guard
 * also drops an inactive alternative and everything under it, so a list that still holds a whole tree exports
 * one path, never the siblings.
 */
export function activeBranch<M extends ExportMessageSource>(messages: readonly M[]): M[] {
  const dropped = new Set<number>();
  const out: M[] = [];
  for (const m of messages) {
    const parentDropped = m.parentMessageId != null && dropped.has(m.parentMessageId);
    if (m.isActiveBranch === false || parentDropped || m.visible === false) {
      dropped.add(m.id);
      continue;
    }
    out.push(m);
  }
  return out;
}

/** The message's text: the live text when given, else the text parts of its prompt. */
export function messageText(m: ExportMessageSource): string {
  if (m.text !== undefined) return m.text;
  if (typeof m.prompt === 'string') return m.prompt;
  return m.prompt.map((p) => (p.type === 'text' ? p.text : '')).filter((t) => t !== '').join('\n\n');
}

/** Images of a message: its own images, then image parts of its prompt; each as b64_json or url. */
export function messageImages(m: ExportMessageSource): ExportImage[] {
  const out: ExportImage[] = [];
  for (const image of m.images ?? []) {
    if (image.b64_json) out.push({ b64_json: image.b64_json });
    else if (image.url) out.push({ url: image.url });
  }
  if (typeof m.prompt !== 'string') {
    for (const part of m.prompt) if (part.type === 'image_url') out.push({ url: part.image_url.url });
  }
  return out;
}

/** The web sources a reply cites, numbered as its [n] are (every format writes them; issue 16 item 16). */
export function messageSources(m: ExportMessageSource): { n: number; title: string; url: string }[] {
  return (m.citations ?? []).map((c, i) => ({ n: i + 1, title: c.title.replace(/\s+/g, ' ').trim() || c.url, url: c.url }));
}

export type Checked = { ok: true; source: ExportSource } | { ok: false; error: string };

/**
 * Spec 000 section 5: exporting needs a named conversation with messages. The source comes back with its
 * messages narrowed to the active branch.
 */
export function checkExportable(source: ExportSource): Checked {
  const messages = activeBranch(source.messages);
  if (source.conversation.name.trim() === '' || messages.length === 0) return { ok: false, error: EXPORT_NOTICE.needsNamedConversation };
  return { ok: true, source: { ...source, messages } };
}

/** A file name from the conversation's name (letters and digits of any script kept), with the format's extension. */
export function exportFileName(source: ExportSource, format: ExportFormat): string {
  const base = source.conversation.name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${base || source.conversation.slug || 'conversation'}.${EXTENSION[format]}`;
}

/** ISO 8601 in UTC, minutes precision: the time shown beside each message in Markdown and PDF. */
export function shownTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const ROLE_LABEL: Record<Role, string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' };

/** The model a reply is shown by: "Auto · gpt-4o" when Auto chose it, else its id. */
export function messageModelLabel(m: ExportMessageSource): string {
  return m.isAutoModel === true ? autoReplyLabel(m.autoModelSelectedModel || m.model) : m.model;
}

/**
 * "Assistant · gpt-4o · 2026-11-23 19:53 UTC": the line above each message in Markdown and PDF ("Assistant · Auto ·
 * gpt-4o · ..." for a reply Auto chose).
 */
export function messageHeading(m: ExportMessageSource): string {
  const parts = [ROLE_LABEL[m.role]];
  if (m.role !== 'user' && m.model) parts.push(messageModelLabel(m));
  parts.push(shownTime(m.timestamp));
  return parts.join(' · ');
}
