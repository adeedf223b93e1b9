/**
 * The system prompt of a conversation (spec 000: system prompt modal; issue 6 item 8): button "Instructions"
 * opening dialog "System prompt". Choose a preset or write your own; the text is stored on the conversation,
 * persisted 400 ms after the last keystroke (spec 000 section 9). Presets can be saved, updated and deleted here;
 * the built-ins ('Standard', 'Study Mode') cannot. 'Standard' is stored as '' so it follows the app's default.
 *
 * A new conversation has instructions too (issue 16): before its first message they are kept in the composer's
 * state (composer.newInstructions; else the default instructions of Settings) and go with that message, which
 * stores them on the conversation it creates.
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
const STANDARD_ID = 0;
const BUILT_IN_IDS = new Set([0, -1]);
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

function report(result: ActionResult | { ok: true; id: number }): boolean {
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

export function InstructionsButton({ slug, instructions }: { slug: string | null; instructions: string | undefined }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const current = useCurrentInstructions(slug, instructions);
  return (
    <>
      <button
        type="button"
        className="instructions-button"
        onClick={() => {
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        Instructions
      </button>
      <dialog ref={dialog} className="system-prompt-dialog" aria-label="System prompt" onClose={() => setOpen(false)}>
        {open && <SystemPromptEditor slug={slug} stored={current} onClose={() => dialog.current?.close()} />}
      </dialog>
    </>
  );
}

function SystemPromptEditor({ slug, stored, onClose }: { slug: string | null; stored: string; onClose(): void }) {
  const presets = useQuery({ kind: 'instructions' });
  const standard = presets?.find((p) => p.id === STANDARD_ID);
  const [presetName, setPresetName] = useState('');
  /** The preset last chosen, so that one edited afterwards can be updated. */
  const [chosenId, setChosenId] = useState<number | null>(null);
  const { text, change, flush } = useDebouncedText((value) => saveInstructions(slug, standard && value === standard.instructions ? '' : value));

  // The text shown: what the user is typing, else what is stored ('' = the Standard preset's text).
  const shown = text ?? (stored === '' ? (standard?.instructions ?? '') : stored);
  const selected: InstructionRow | undefined = presets?.find((p) => p.instructions === shown);
  const chosen = presets?.find((p) => p.id === chosenId) ?? selected;
  const editable = chosen !== undefined && !BUILT_IN_IDS.has(chosen.id);


  async function savePreset() {
    const name = presetName.trim() || 'My preset';
    if (report(await engine<ActionResult | { ok: true; id: number }>((api) => api.createInstruction({ name, instructions: shown })))) setPresetName('');
  }

  return (
    <form
      method="dialog"
      className="system-prompt"
      onSubmit={(e) => {
        e.preventDefault();
        flush();
        onClose();
      }}
    >
      <h2>System prompt</h2>
      <label className="field">
        <span>Preset</span>
        <select
          value={selected ? String(selected.id) : CUSTOM}
          onChange={(e) => {
            const p = presets?.find((x) => String(x.id) === e.target.value);
            if (p) {
              setChosenId(p.id);
              change(p.instructions);
            }
          }}
        >
          <PresetOptions presets={presets} custom={!selected} />
        </select>
      </label>
      <label className="field">
        <span>{slug === null ? 'Instructions for the new conversation' : 'Instructions for this conversation'}</span>
        <textarea value={shown} rows={10} onChange={(e) => change(e.target.value)} />
      </label>
      <p className="muted hint">
        <code>{'{{currentDate}}'}</code> and <code>{'{{modelName}}'}</code> are replaced by today’s date and the model’s name when sent.
      </p>
      <div className="preset-actions">
        {editable && chosen.instructions !== shown && (
          <button
            type="button"
            disabled={shown.trim() === ''}
            onClick={() => void engine<ActionResult>((api) => api.updateInstruction(chosen.id, { name: chosen.name, instructions: shown })).then(report)}
          >
            Update preset “{chosen.name}”
          </button>
        )}
        {editable && (
          <button
            type="button"
            onClick={() => {
              setChosenId(null);
              void engine<ActionResult>((api) => api.deleteInstruction(chosen.id)).then(report);
            }}
          >
            Delete preset “{chosen.name}”
          </button>
        )}
        {!selected && (
          <>
            <input aria-label="Preset name" placeholder="Preset name" value={presetName} onChange={(e) => setPresetName(e.target.value)} />
            <button type="button" disabled={shown.trim() === ''} onClick={() => void savePreset()}>
              Save as preset
            </button>
          </>
        )}
      </div>
      <div className="dialog-actions">
        <button type="submit">Done</button>
      </div>
    </form>
  );
}
