/**
 * The "Model settings" dialog's form (./ModelSettings.tsx opens it): the sampling fields the model takes and Max
 * tokens, each saved when its field is left; "Reset to defaults" clears them all. A chunk of its own.
 */
import { useState } from 'react';
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

export default function ModelSettingsForm({ model, onClose }: { model: ModelInfo; onClose(): void }) {
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
