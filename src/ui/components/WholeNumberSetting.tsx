import { useEffect, useId, useState } from 'react';

/**
 * A whole-number setting: typed freely, saved when it is a valid whole number in [min, max] (on blur or Enter),
 * otherwise explained under the field. `unit` (e.g. 'px') is written after the field.
 */
export function WholeNumberSetting({ label, value, min, max, step, unit, hint, onSave }: { label: string; value: number; min: number; max: number; step: number; unit?: string; hint: string; onSave(v: number): void }) {
  const id = useId();
  const [text, setText] = useState(String(value));
  useEffect(() => setText(String(value)), [value]);
  const n = Number(text);
  const valid = /^\d+$/.test(text.trim()) && n >= min && n <= max;
  const commit = () => {
    if (valid && n !== value) onSave(n);
  };
  const input = (
    <input
      id={id}
      type="number"
      inputMode="numeric"
      min={min}
      max={max}
      step={step}
      value={text}
      aria-invalid={!valid}
      aria-describedby={`${id}-hint`}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => e.key === 'Enter' && commit()}
    />
  );
  return (
    <div className="setting">
      <label htmlFor={id}>{label}</label>
      {unit === undefined ? (
        input
      ) : (
        <span className="setting-unit">
          {input}
          {unit}
        </span>
      )}
      <p id={`${id}-hint`} className={valid ? 'setting-hint muted' : 'setting-hint setting-error'}>
        {valid ? hint : `Enter a whole number from ${min} to ${max}.`}
      </p>
    </div>
  );
}
