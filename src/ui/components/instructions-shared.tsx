/**
 * What the Instructions dialog (./SystemPromptDialog.tsx), its editor (./SystemPromptEditor.tsx, a lazy chunk) and
 * the default-instructions setting share: the debounced text field, the preset options, saving a conversation's
 * instructions and reading the ones in force.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { ActionResult } from '../../protocol/engine';
import type { InstructionRow } from '../../events/model';
import { engine, useQuery } from '../engine';
import { showLocalNotice } from '../state';
import { composer, newConversationInstructions } from '../composer-state';

/** Spec 000 section 9: instruction persistence debounced 400 ms. */
export const PERSIST_DEBOUNCE_MS = 400;

/**
 * A text field saved PERSIST_DEBOUNCE_MS after the last keystroke, when `flush` is called (a choice, leaving the
 * field) and when the component goes away. `text` is null until the user types; `persist` is the latest one given.
 */
export function useDebouncedText(persist: (value: string) => void): { text: string | null; change(value: string): void; flush(): void } {
  const [text, setText] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const pending = useRef<string | null>(null);
  const latest = useRef(persist);
  useEffect(() => {
    latest.current = persist;
  });
  const flush = useCallback(() => {
    clearTimeout(timer.current);
    const value = pending.current;
    pending.current = null;
    if (value !== null) latest.current(value);
  }, []);
  const change = useCallback(
    (value: string) => {
      setText(value);
      pending.current = value;
      clearTimeout(timer.current);
      timer.current = setTimeout(flush, PERSIST_DEBOUNCE_MS);
    },
    [flush],
  );
  // Whatever is still waiting is saved when the component goes away.
  useEffect(() => flush, [flush]);
  return { text, change, flush };
}
/** The preset select's value when the text matches no preset. */
export const CUSTOM = 'custom';

/** The preset select's options: every preset, and "Custom" while the text matches none. */
export function PresetOptions({ presets, custom }: { presets: readonly InstructionRow[] | undefined; custom: boolean }) {
  return (
    <>
      {presets?.map((p) => (
        <option key={p.id} value={String(p.id)}>
          {p.name}
        </option>
      ))}
      {custom && <option value={CUSTOM}>Custom</option>}
    </>
  );
}

export function report(result: ActionResult | { ok: true; id: number }): boolean {
  if (!result.ok) showLocalNotice({ title: result.error, text: '', tone: 'red', durationMs: 5000 });
  return result.ok;
}

/** Saves a conversation's instructions: in the engine once it exists, in the composer's state before. */
export function saveInstructions(slug: string | null, text: string): void {
  if (slug === null) {
    composer.newInstructions = text;
    return;
  }
  void engine<ActionResult>((api) => api.setConversationInstructions(slug, text)).then(report);
}

/** The instructions in force: the conversation's ('' = Standard), or for a new one those it would start with. */
export function useCurrentInstructions(slug: string | null, instructions: string | undefined): string {
  const state = useSnapshot(composer);
  const preferences = useQuery({ kind: 'preferences' });
  return slug === null ? newConversationInstructions(state.newInstructions, preferences?.defaultInstructions) : (instructions ?? '');
}

