/** Ephemeral view state (valtio): drafts, chosen model, layout, local notices. Nothing here must survive a reload. */
import { proxy } from 'valtio';
import type { Notice } from '../protocol/engine';

export const view = proxy({
  /** Draft text per conversation slug ('new' for a fresh one). */
  drafts: {} as Record<string, string>,
  /** Chosen text model; '' until the catalogue arrives. */
  model: '',
  /** Notices raised by this tab itself (input validation). */
  localNotices: [] as Notice[],
  /** Phone layout: the conversation list drawer is open ("Menu"). Ignored on wide screens, where it always shows. */
  drawerOpen: false,
});

/** A topic's error notices (red or orange): closed once the topic's action succeeds (Notice.topic). */
const staleError = (n: Notice, topic: string | undefined) => topic !== undefined && n.topic === topic && (n.tone === 'red' || n.tone === 'orange');

export function showLocalNotice(notice: Omit<Notice, 'id'>): void {
  const id = crypto.randomUUID();
  view.localNotices = [...view.localNotices.filter((n) => n.title !== notice.title && !staleError(n, notice.topic)), { ...notice, id }];
  if (notice.durationMs !== null) setTimeout(() => dismissLocalNotice(id), notice.durationMs);
}

export function resolveLocalNotices(topic: string): void {
  if (view.localNotices.some((n) => staleError(n, topic))) view.localNotices = view.localNotices.filter((n) => !staleError(n, topic));
}

export function dismissLocalNotice(id: string): void {
  view.localNotices = view.localNotices.filter((n) => n.id !== id);
}
