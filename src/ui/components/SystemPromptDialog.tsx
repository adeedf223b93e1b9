/**
 * The system prompt of a conversation (spec 000: system prompt modal; issue 6 item 8): button "Instructions"
 * opening dialog "System prompt". Choose a preset or write your own; the text is stored on the conversation,
 * persisted 400 ms after the last keystroke (spec 000 section 9). Presets can be saved, updated and deleted here;
 * the built-ins ('Standard', 'Study Mode') cannot. 'Standard' is stored as '' so it follows the app's default.
 *
 * A new conversation has instructions too (issue 16): before its first message they are kept in the composer's
 * state (composer.newInstructions; else the default instructions of Settings) and go with that message, which
 * stores them on the conversation it creates.
 *
 * The editor is a chunk of its own (./SystemPromptEditor.tsx), loaded when the button is pointed at or pressed; the
 * helpers it shares with the settings live in ./instructions-shared.tsx (re-exported here).
 */
import { lazy, Suspense, useRef, useState } from 'react';
import { useCurrentInstructions } from './instructions-shared';
import { preloadOn } from './preload-on';

export { CUSTOM, PERSIST_DEBOUNCE_MS, PresetOptions, saveInstructions, useCurrentInstructions, useDebouncedText } from './instructions-shared';

const loadEditor = () => import('./SystemPromptEditor');
const SystemPromptEditor = lazy(loadEditor);

export function InstructionsButton({ slug, instructions }: { slug: string | null; instructions: string | undefined }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const current = useCurrentInstructions(slug, instructions);
  return (
    <>
      <button
        type="button"
        className="instructions-button"
        {...preloadOn(loadEditor)}
        onClick={() => {
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        Instructions
      </button>
      <dialog ref={dialog} className="system-prompt-dialog" aria-label="System prompt" onClose={() => setOpen(false)}>
        {open && (
          <Suspense fallback={<div className="dialog-loading" aria-busy="true" />}>
            <SystemPromptEditor slug={slug} stored={current} onClose={() => dialog.current?.close()} />
          </Suspense>
        )}
      </dialog>
    </>
  );
}

