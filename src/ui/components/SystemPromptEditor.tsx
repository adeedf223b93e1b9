/**
 * The "System prompt" dialog's editor (./SystemPromptDialog.tsx opens it; a chunk of its own): a preset or the
 * user's own text, saved 400 ms after the last keystroke; presets saved, updated and deleted here.
 */
import { useState } from 'react';
import type { ActionResult } from '../../protocol/engine';
import type { InstructionRow } from '../../events/model';
import { engine, useQuery } from '../engine';
import { CUSTOM, PresetOptions, report, saveInstructions, useDebouncedText } from './instructions-shared';

const STANDARD_ID = 0;
const BUILT_IN_IDS = new Set([0, -1]);

export default function SystemPromptEditor({ slug, stored, onClose }: { slug: string | null; stored: string; onClose(): void }) {
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

  // Until the presets arrive the Standard text is unknown: an empty box would show (and could save) nothing.
  if (presets === undefined) return <div className="dialog-loading" aria-busy="true" />;

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
