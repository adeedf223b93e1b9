/**
 * A conversation shown read-only with the app's own message list (the share page, the Inspector's time scrubber):
 * the messages of a folded log, with a branch navigator that switches branches in this view only (nothing is sent
 * to the engine) and no other actions. Media live outside the event log (Blobs in the sharer's browser), so a
 * read-only copy shows the text of each message and says when media were left out.
 */
import { createContext } from 'react';
import type { MessageRow } from '../../events/model';
import { promptText } from '../../projections/projection';
import type { MessageView } from '../../protocol/engine';
import { alternativesOf, buildTree, type MessageTree } from '../../shared/history';

/** Present in a read-only list: the branch navigator calls it, and every other message action is hidden. */
export interface ReadOnlyView {
  switchBranch(messageId: number, direction: 'previous' | 'next'): void;
}
export const ReadOnlyContext = createContext<ReadOnlyView | null>(null);

/** The alternative group -> the member shown, as chosen in this view (else the log's own active member). */
export type BranchChoices = ReadonlyMap<string, number>;

/** Whether a message carries media a read-only copy cannot show (images, video, files, audio). */
export function hasMedia(m: MessageRow): boolean {
  return (m.images?.length ?? 0) > 0 || m.videoUrl !== undefined || m.videoFileId !== undefined || (m.files?.length ?? 0) > 0 || m.audio !== undefined;
}

function textOnly(m: MessageRow): MessageRow {
  if (!hasMedia(m)) return m;
  const { images: _i, videoUrl: _u, videoFileId: _f, videoGenerationId: _g, videoStatus: _s, files: _files, audio: _a, ...rest } = m;
  return rest;
}

export interface BranchView {
  tree: MessageTree;
  messages: MessageView[];
  /** Some message on the shown path had media that are not in this copy. */
  mediaLeftOut: boolean;
}

/**
 * The path a read-only view shows: `rows` (one conversation's messages in time order: timestamp, then id) with the
 * choices applied (a chosen member is the active one of its group), then the tree's active path, each message
 * with its place among its alternatives. Pure.
 */
export function branchView(rows: readonly MessageRow[], choices: BranchChoices): BranchView {
  const chosen = choices.size === 0 ? rows : rows.map((m) => (m.alternativeGroup !== null && choices.has(m.alternativeGroup) ? { ...m, isActiveBranch: m.id === choices.get(m.alternativeGroup) } : m));
  const tree = buildTree(chosen);
  let mediaLeftOut = false;
  const messages = tree.activePath().map((m): MessageView => {
    if (hasMedia(m)) mediaLeftOut = true;
    const view: MessageView = { ...textOnly(m), text: promptText(m.prompt) };
    const alternatives = alternativesOf(tree, m);
    if (alternatives) view.alternatives = alternatives;
    return view;
  });
  return { tree, messages, mediaLeftOut };
}

/** The choices after moving `messageId`'s group one member back or forward (unchanged at either end). */
export function switchChoice(tree: MessageTree, choices: BranchChoices, messageId: number, direction: 'previous' | 'next'): BranchChoices {
  const m = tree.byId.get(messageId);
  const group = m?.alternativeGroup;
  if (!m || group === null || group === undefined) return choices;
  const members = tree.groups.get(group) ?? [];
  const at = members.findIndex((x) => x.id === messageId);
  const next = members[at + (direction === 'next' ? 1 : -1)];
  if (at < 0 || !next) return choices;
  return new Map(choices).set(group, next.id);
}
