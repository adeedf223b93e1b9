/**
 * JSON export: the spec's exported message shape (spec 000 section 3: role, timestamp, prompt, images (each
 * b64_json or url), completion (inputTokens, outputTokens), model), wrapped in a document that names the
 * conversation and the export time.
 */
import type { Role } from '../../../events/model';
import { messageImages, messageSources, messageText, type ExportImage, type ExportSource } from './model';

/** Token counts of a reply; null where the engine did not record the count. */
export interface ExportCompletion {
  inputTokens: number | null;
  outputTokens: number | null;
}

export interface ExportedMessage {
  role: Role;
  /** Milliseconds. */
  timestamp: number;
  prompt: string;
  images: ExportImage[];
  /** On assistant messages; null on the others (they complete nothing). */
  completion: ExportCompletion | null;
  model: string;
  /** A reply that cites web sources: them, in the order of its [n] (absent on other messages). */
  sources?: { title: string; url: string }[];
  /** Spec 000 section 3, on a message of an Auto turn only: true, and the model Auto chose (also `model`). */
  isAutoModel?: true;
  autoModelSelectedModel?: string;
}

export interface ExportedConversation {
  name: string;
  slug: string;
  /** ISO 8601. */
  exportedAt: string;
  messages: ExportedMessage[];
}

export function toExportedConversation(source: ExportSource): ExportedConversation {
  return {
    name: source.conversation.name,
    slug: source.conversation.slug,
    exportedAt: new Date(source.exportedAt).toISOString(),
    messages: source.messages.map((m) => {
      const sources = messageSources(m);
      return {
        role: m.role,
        timestamp: m.timestamp,
        prompt: messageText(m),
        images: messageImages(m),
        completion: m.role === 'assistant' ? { inputTokens: m.inputTokens ?? null, outputTokens: m.outputTokens ?? null } : null,
        model: m.model,
        ...(sources.length > 0 ? { sources: sources.map(({ title, url }) => ({ title, url })) } : {}),
        ...(m.isAutoModel === true ? { isAutoModel: true as const, autoModelSelectedModel: m.autoModelSelectedModel || m.model } : {}),
      };
    }),
  };
}

/** The JSON file's text (two-space indented). `source` is what `checkExportable` returned. */
export function toJson(source: ExportSource): string {
  return `${JSON.stringify(toExportedConversation(source), null, 2)}\n`;
}
