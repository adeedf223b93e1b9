/**
 * The engine's export, web (search status, scraping, suggestions) and scratchpad domains.
 * Joined into the engine API by ./engine.ts, which re-exports them.
 */
import type { ScrapedPage, ScrapeFailure, Suggestion, SuggestionKind, WebSearchStatus } from './web';
import type { ScratchpadEntryRow } from '../events/model';
import type { ActionResult } from './engine';

/** A conversation's scratchpad entries, newest first (src/worker/rooms/scratchpad/commands.ts). */
export interface ScratchpadQueries {
  scratchpad: { query: { kind: 'scratchpad'; slug: string }; result: ScratchpadEntryRow[] };
}

export type ExportFormat = 'markdown' | 'json' | 'pdf';
/** A file the engine built for download (bytes transferred, not copied), or why it could not. */
export type ExportFile = { ok: true; fileName: string; mimeType: string; bytes: ArrayBuffer } | { ok: false; error: string };

/** Export (src/worker/rooms/export/commands.ts): a conversation's active branch as a file, or every conversation as one zip. */
export interface ExportHandlers {
  exportConversation(slug: string, format: ExportFormat): Promise<ExportFile>;
  exportAllConversations(): Promise<ExportFile>;
}

/** A conversation's published share link, as the engine keeps it (the owner token stays in the engine). */
export interface ShareLink {
  id: string;
  /** Path on this origin: /share/{id}. */
  url: string;
  /** Published with the words replaced by placeholder letters. */
  redacted: boolean;
  publishedAt: number;
}

/** The read-only copy of a conversation as a file the user saves (NDJSON event log), or why not. */
export type ShareFile = { ok: true; fileName: string; text: string; events: number } | { ok: false; error: string };

/**
 * Share links (src/worker/rooms/share/commands.ts; spec 001 section 2): a conversation's events as a file, or
 * published through the gateway as a link only its owner can delete.
 */
export interface ShareHandlers {
  shareFile(slug: string, options: { redact: boolean }): Promise<ShareFile>;
  /** Publishes the conversation as it is now (replacing the link published before, if any). */
  publishShare(slug: string, options: { redact: boolean }): Promise<{ ok: true; link: ShareLink } | { ok: false; error: string }>;
  /** Deletes the published link (the gateway then answers 404 for it). */
  deleteShare(slug: string): Promise<ActionResult>;
  /** The published link of a conversation, or null. */
  shareLink(slug: string): Promise<ShareLink | null>;
}

/** What scraping URLs for the composer gave: the pages read and why others were not (src/worker/rooms/web/commands.ts). */
export type ScrapeOutcome =
  /** `skipped`: URLs not scraped because the message's MAX_SCRAPE_URLS were reached (pages and scrapes in flight). */
  | { ok: true; pages: ScrapedPage[]; failures: ScrapeFailure[]; cost: number; skipped?: string[] }
  | { ok: false; error: string; notified?: boolean };

/** The message a scrape is for: its composer draft (a key per tab's draft) and the page URLs already on it. */
export interface ScrapeDraft {
  key: string;
  attached: string[];
}

/** Web search status, scraping and starter suggestions (src/worker/rooms/web/commands.ts). */
export interface WebHandlers {
  /** Whether web search can be used, and why not (the composer's switch). */
  webSearchStatus(): Promise<WebSearchStatus>;
  /**
   * Scrapes URLs for a message through the gateway (charged per page read): at most 25 unique URLs a message,
   * counting the draft's attached pages and its scrapes still in flight; the rest come back as `skipped`.
   */
  scrapeUrls(urls: string[], draft?: ScrapeDraft): Promise<ScrapeOutcome>;
  /** Random starter prompts for an empty conversation; [] when the gateway cannot be asked. */
  suggestions(kind: SuggestionKind): Promise<Suggestion[]>;
  /** Recommended text models (GET /api/suggestions?kind=models: 20 fetched; the view shows 15); [] on failure. */
  modelSuggestions(): Promise<string[]>;
}

/** What a scratchpad entry holds: a note typed in the panel, a message's text, code, or a code run's output. */
export type ScratchpadEntryType = 'note' | 'message' | 'code' | 'output';

/** The scratchpad of each conversation (src/worker/rooms/scratchpad/commands.ts), kept in the log. */
export interface ScratchpadHandlers {
  addScratchpadEntry(slug: string, content: string, type: ScratchpadEntryType): Promise<{ ok: true; id: number } | { ok: false; error: string }>;
  editScratchpadEntry(id: number, content: string): Promise<ActionResult>;
  deleteScratchpadEntry(id: number): Promise<ActionResult>;
}
