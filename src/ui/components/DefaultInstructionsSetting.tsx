/**
 * Settings, "Instructions" (issue 16): the default instructions (system prompt) a new conversation starts with
 * (the defaultInstructions preference; '' = the built-in 'Standard'). Pick a preset or write them; the text is
 * saved 400 ms after the last keystroke and when the field is left (spec 000 section 9's debounce). Each
 * conversation keeps its own copy, changed with its "Instructions" button or the composer's Study Mode chip.
 */
import { useId } from 'react';
import type { Preferences } from '../../protocol/preferences';
import { useQuery } from '../engine';
import { CUSTOM, PresetOptions, useDebouncedText } from './SystemPromptDialog';

const STANDARD_ID = 0;

export function DefaultInstructionsSetting({ preferences, save }: { preferences: Preferences; save(changes: Partial<Preferences>): void }) {
  const id = useId();
  const presets = useQuery({ kind: 'instructions' });
  const standard = presets?.find((p) => p.id === STANDARD_ID);
  const stored = preferences.defaultInstructions;
  const { text, change, flush } = useDebouncedText((value) => {
    // 'Standard' (or nothing) is stored as '': it follows the app's default prompt.
    const toStore = value.trim() === '' || (standard && value === standard.instructions) ? '' : value;
    if (toStore !== stored) save({ defaultInstructions: toStore });
  });
  const shown = text ?? (stored === '' ? (standard?.instructions ?? '') : stored);
  const selected = presets?.find((p) => p.instructions === shown);

  return (
    <>
      <div className="setting">
        <label htmlFor={`${id}-preset`}>Default instructions preset</label>
        <select
          id={`${id}-preset`}
          value={selected ? String(selected.id) : CUSTOM}
          onChange={(e) => {
            const p = presets?.find((x) => String(x.id) === e.target.value);
            if (!p) return;
            change(p.instructions);
            flush();
          }}
        >
          <PresetOptions presets={presets} custom={!selected} />
        </select>
      </div>
      <div className="setting setting-wide">
        <label htmlFor={`${id}-text`}>Default instructions</label>
        <textarea id={`${id}-text`} rows={6} value={shown} onChange={(e) => change(e.target.value)} onBlur={flush} aria-describedby={`${id}-hint`} />
        <p id={`${id}-hint`} className="setting-hint muted">
          New conversations start with these. Change them for one conversation with its Instructions button.
        </p>
      </div>
    </>
  );
}
