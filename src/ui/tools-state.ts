/**
 * View state of the conversation page's side panels (issue 8 items 5 and 6): which panel is open, the code the
 * viewer holds and the language the block named. Ephemeral (valtio, DESIGN rule 7): the scratchpad's entries are
 * engine data; what the viewer holds is not kept across a reload.
 */
import { proxy } from 'valtio';
import type { ScratchpadEntryType } from '../protocol/engine';
import { engine } from './engine';
import { showLocalNotice } from './state';

export type ToolPanel = 'viewer' | 'scratchpad';

export const tools = proxy({
  panel: null as ToolPanel | null,
  viewer: {
    code: '',
    /** The language the code block named ('' for none); the viewer resolves it (src/viewer/language.ts). */
    blockLanguage: '',
    /** Bumped on every "Open in viewer", so the viewer takes the new code even when it is the same text. */
    opened: 0,
  },
});

export function openInViewer(code: string, blockLanguage: string): void {
  tools.viewer = { code, blockLanguage, opened: tools.viewer.opened + 1 };
  tools.panel = 'viewer';
}

export function togglePanel(panel: ToolPanel): void {
  tools.panel = tools.panel === panel ? null : panel;
}

export const ADDED_TO_SCRATCHPAD = 'Added to scratchpad'; // ours

/**
 * Adds an entry to the conversation's scratchpad; says so (unless `quiet`: a note typed in the panel shows up
 * there at once), or why not, in a notice.
 */
export async function addToScratchpad(slug: string | null, content: string, type: ScratchpadEntryType, quiet = false): Promise<boolean> {
  const result = await engine<{ ok: true; id: number } | { ok: false; error: string }>((api) => api.addScratchpadEntry(slug ?? '', content, type));
  if (!result.ok) showLocalNotice({ title: result.error, text: '', tone: 'orange', durationMs: 5000 });
  else if (!quiet) showLocalNotice({ title: ADDED_TO_SCRATCHPAD, text: '', tone: 'green', durationMs: 5000 });
  return result.ok;
}
