/**
 * The engine's account-side contract beyond money (issue 10 items 7 and 8): folders, the updates feed and analytics
 * consent. Joined into the engine API by src/protocol/engine.ts.
 */
import type { ActionResult } from './engine';

// ---- folders (spec 001 sections 3 and 4) ----

export interface FolderView {
  id: number;
  name: string;
  /** The folder it is nested in; null at the top. */
  parentId: number | null;
  createdAt: number;
  updatedAt: number;
  /** Conversations directly in it (deleted ones not counted). */
  conversations: number;
}

/** The sidebar's folder filter: every conversation, or one folder (with the folders nested in it). */
export type ActiveFolder = 'all' | number;

export interface FolderHandlers {
  /** A new folder, at the top (`parentId` null) or nested in another. */
  createFolder(name: string, parentId: number | null): Promise<{ ok: true; id: number } | { ok: false; error: string }>;
  renameFolder(id: number, name: string): Promise<ActionResult>;
  /** Deletes the folder and the folders nested in it; their conversations stay, in no folder. */
  deleteFolder(id: number): Promise<ActionResult>;
  /** Moves conversations (by id) to a folder, or out of any folder with null. One or many (a bulk move). */
  moveConversationsToFolder(conversationIds: number[], folderId: number | null): Promise<ActionResult>;
}

export interface FolderQueries {
  /** Every folder, sorted by name (the view nests them by parentId). */
  folders: { query: { kind: 'folders' }; result: FolderView[] };
}

// ---- the updates feed (spec 001 sections 3 and 4) ----

/** Spec 001 section 3: id, title, text (markdown), date, read. */
export interface UpdateItemView {
  id: string;
  title: string;
  text: string;
  /** YYYY-MM-DD. */
  date: string;
  read: boolean;
}

export interface UpdatesView {
  /** Newest first. */
  items: UpdateItemView[];
  unread: number;
}

export interface UpdatesHandlers {
  /** Marks items read: one (its id) or several; unknown ids are refused, ids already read are skipped. */
  markUpdatesRead(ids: string[]): Promise<ActionResult>;
  markAllUpdatesRead(): Promise<ActionResult>;
}

export interface UpdatesQueries {
  updates: { query: { kind: 'updates' }; result: UpdatesView };
}

// ---- analytics consent (spec 001 sections 3, 4, 6, 7) ----

/** Spec 001 section 4: not required, pending, granted, denied (on the wire: not_required, pending, granted, denied). */
export type ConsentStatus = 'not_required' | 'pending' | 'granted' | 'denied';
export const CONSENT_STATUSES: readonly ConsentStatus[] = ['not_required', 'pending', 'granted', 'denied'];

/** Spec 001 section 3: consentStatus, analyticsConsent, consentLastUpdated, policyVersion. */
export interface ConsentState {
  consentStatus: ConsentStatus;
  analyticsConsent: boolean;
  /** Milliseconds since the epoch; null when never decided. */
  consentLastUpdated: number | null;
  policyVersion: string;
}

export interface ConsentView {
  /** null until the status check answered (or after it failed its 3 tries: then nothing is tracked). */
  consent: ConsentState | null;
  /** The consent banner shows: the status is pending and a session exists (spec 001 section 4). */
  showBanner: boolean;
}

export interface ConsentHandlers {
  /** The visitor came from a tracked source (spec 001 section 7): consent becomes required unless already decided. */
  requireConsentForAds(source: string): Promise<ActionResult>;
  grantConsent(): Promise<ActionResult>;
  denyConsent(): Promise<ActionResult>;
}

export interface ConsentQueries {
  consent: { query: { kind: 'consent' }; result: ConsentView };
}
