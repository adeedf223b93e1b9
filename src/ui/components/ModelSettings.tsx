/**
 * "Model settings" of one text model (spec 000 section 7: the sampling fields a chat request carries): a button
 * beside the model picker and beside each extra model of multi-model mode, opening a dialog with the settings the
 * model takes (ModelInfo.parameters, decided by the gateway per upstream) and Max tokens. Each value is saved when
 * its field is left (modelSettings.changed, kept per model id in the engine, so every tab and every later request
 * has it); an empty field is the model's default; "Reset to defaults" clears them all.
 */
import { useRef, useState } from 'react';
import type { ModelInfo } from '../../protocol/api';
import type { ActionResult } from '../../protocol/engine';
import type { ModelSettings } from '../../events/model';
import { clampSetting, MAX_TOKENS_LIMIT, NUMERIC_SAMPLING, REASONING_EFFORTS, SAMPLING_NAMES, SAMPLING_SPECS, type NumericSamplingName } from '../../protocol/sampling-limits';
import { engine, useQuery } from '../engine';

/** Every text-model setting the panel writes (Reset clears these, and only these: an image model's stay). */
const TEXT_SETTING_KEYS = [...NUMERIC_SAMPLING, 'reasoning_effort', 'stop', 'maxTokens'] as const;

function save(modelId: string, settings: ModelSettings): void {
  void engine<ActionResult>((api) => api.setModelSettings(modelId, settings));
}

export function ModelSettingsButton({ model, className }: { model: ModelInfo | undefined; className?: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  if (!model || model.modality !== 'text') return null;
  return (
    <>
      <button
        type="button"
        className={`icon model-settings-button ${className ?? ''}`}
        aria-label={`Model settings: ${model.name}`}
        title="Model settings"
        onClick={() => {
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <path d="M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0" />
          <circle cx="16" cy="6" r="2" />
          <circle cx="10" cy="12" r="2" />
          <circle cx="18" cy="18" r="2" />
        </svg>
      </button>
      <dialog ref={dialog} className="system-prompt-dialog model-settings-dialog" aria-label="Model settings" onClose={() => setOpen(false)}>
        {open && <ModelSettingsForm model={model} onClose={() => dialog.current?.close()} />}
      </dialog>
    </>
  );
}

function ModelSettingsForm({ model, onClose }: { model: ModelInfo; onClose(): void }) {
  const all = useQuery({ kind: 'modelSettings' });
  const preferences = useQuery({ kind: 'preferences' });
  const stored: ModelSettings = all?.[model.id] ?? {};
  const takes = new Set(model.parameters ?? []);
  const numeric = NUMERIC_SAMPLING.filter((n) => takes.has(n));
  const someHidden = takes.size < SAMPLING_NAMES.length;
  const set = (settings: ModelSettings) => save(model.id, settings);

  return (
    <form
      method="dialog"
      className="system-prompt model-settings"
      onSubmit={(e) => {
        e.preventDefault();
        // The field being edited saves on blur, which the click on Done has already caused.
        onClose();
      }}
    >
      <h2>Model settings</h2>
      <p className="hint muted">
        For <strong>{model.name}</strong>, in every conversation. Leave a field empty for the model&apos;s default.
      </p>
      <div className="model-settings-grid">
        {numeric.map((name) => (
          <NumberSetting key={name} name={name} value={stored[name]} onSave={(v) => set({ [name]: v })} />
        ))}
        <label className="field">
          <span>Max tokens</span>
          <NumberField
            value={stored.maxTokens}
            min={1}
            max={MAX_TOKENS_LIMIT}
            step={1}
            placeholder={`Default (${(preferences?.maxTokens ?? 0).toLocaleString('en-US')})`}
            normalise={(v) => Math.min(MAX_TOKENS_LIMIT, Math.max(1, Math.round(v)))}
            onSave={(v) => set({ maxTokens: v })}
          />
          <small className="muted">The longest reply, in tokens.</small>
        </label>
        {takes.has('reasoning_effort') && (
          <label className="field">
            <span>Reasoning effort</span>
            <select value={stored.reasoning_effort ?? ''} onChange={(e) => set({ reasoning_effort: e.target.value === '' ? undefined : e.target.value })}>
              <option value="">Default</option>
              {REASONING_EFFORTS.map((r) => (
                <option key={r} value={r}>
                  {r[0]?.toUpperCase() + r.slice(1)}
                </option>
              ))}
            </select>
            <small className="muted">How long the model thinks before it answers.</small>
          </label>
        )}
        {takes.has('stop') && (
          <label className="field">
            <span>Stop sequence</span>
            <input
              type="text"
              maxLength={200}
              defaultValue={stored.stop ?? ''}
              placeholder="None"
              onBlur={(e) => {
                const v = e.target.value === '' ? undefined : e.target.value;
                if (v !== stored.stop) set({ stop: v });
              }}
            />
            <small className="muted">The reply ends where the model would write this.</small>
          </label>
        )}
      </div>
      {someHidden && <p className="hint muted">Settings this model&apos;s provider does not take are not offered.</p>}
      <div className="dialog-actions model-settings-actions">
        <button type="button" onClick={() => set(Object.fromEntries(TEXT_SETTING_KEYS.map((k) => [k, undefined])) as ModelSettings)}>
          Reset to defaults
        </button>
        <button type="submit">Done</button>
      </div>
    </form>
  );
}

function NumberSetting({ name, value, onSave }: { name: NumericSamplingName; value: number | undefined; onSave(v: number | undefined): void }) {
  const spec = SAMPLING_SPECS[name];
  return (
    <label className="field">
      <span>{spec.label}</span>
      <NumberField value={value} min={spec.min} max={spec.max} step={spec.step} placeholder={`Default (${spec.default})`} normalise={(v) => clampSetting(name, v) ?? spec.default} onSave={onSave} />
      <small className="muted">
        {spec.hint} {spec.min} to {spec.max}.
      </small>
    </label>
  );
}

/** A number input saved when left: empty = default (undefined), anything else clamped to the range. */
function NumberField({ value, min, max, step, placeholder, normalise, onSave }: { value: number | undefined; min: number; max: number; step: number; placeholder: string; normalise(v: number): number; onSave(v: number | undefined): void }) {
  const [draft, setDraft] = useState<string | null>(null);
  const shown = draft ?? (value === undefined ? '' : String(value));
  const commit = () => {
    if (draft === null) return;
    const trimmed = draft.trim();
    const parsed = trimmed === '' ? undefined : Number(trimmed);
    setDraft(null);
    if (parsed !== undefined && !Number.isFinite(parsed)) return;
    const next = parsed === undefined ? undefined : normalise(parsed);
    if (next !== value) onSave(next);
  };
  return (
    <input
      type="number"
      inputMode="decimal"
      min={min}
      max={max}
      step={step}
      placeholder={placeholder}
      value={shown}
      onChange={(e) => setDraft(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit();
      }}
    />
  );
}
