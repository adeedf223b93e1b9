/**
 * Share links (spec 001 section 2, issue 20): a read-only page of one conversation made from a repro of its
 * events (src/inspect/repro.ts), published through the gateway at the user's choice and deleted by its owner.
 * The wire contract the engine, the gateway and the share page have in common.
 *
 *   POST   /api/share        body: the repro as NDJSON (the event log format, src/events/codec.ts)
 *                            -> 201 ShareCreated; 413 over SHARE_MAX_BYTES; 429 over the per-session rate or count
 *   GET    /share/:id        the app's page (index.html), 404 when there is no such share
 *   GET    /share/:id/log    the NDJSON, as data (never a page: nosniff, sandboxed, attachment)
 *   DELETE /api/share/:id    header SHARE_OWNER_HEADER: the owner token -> 200; 403 wrong token; 404 none
 */

/** Largest shared log, bytes (a conversation of a few hundred long messages; images are not in the log). */
export const SHARE_MAX_BYTES = 2 * 1024 * 1024;
/** Shares one session may keep published at once. */
export const SHARE_MAX_PER_SESSION = 50;
/** The request header carrying the owner token of a DELETE. */
export const SHARE_OWNER_HEADER = 'x-share-owner';
/** A share id: 22 characters of base64url (128 random bits), so ids cannot be guessed or listed. */
export const SHARE_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** What a deleted or unknown share link shows (the gateway's 404 page and the share page alike). */
export const SHARE_MISSING_TEXT = 'This shared conversation does not exist, or its owner deleted it.';

export interface ShareCreated {
  id: string;
  /** Path of the share's page on this origin: `/share/{id}`. */
  url: string;
  /** Proves ownership for DELETE; the gateway keeps only its hash, the engine keeps the token. */
  ownerToken: string;
}

/** The shared page's path for an id. */
export const sharePath = (id: string): string => `/share/${id}`;
/** The shared log's path for an id. */
export const shareLogPath = (id: string): string => `/share/${id}/log`;
