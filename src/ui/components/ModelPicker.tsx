/**
 * The model picker: a button (role combobox, named by `label`) that opens a searchable list of models grouped by
 * provider, each with its price per million tokens (input / output), context length and capabilities, the free
 * ones marked. Keyboard: Arrow keys move, Enter chooses, Escape closes; typing filters. Reusable for any choice
 * of model: the main model, the extra models of multi-model mode (`exclude` hides those already chosen), the
 * default model in Settings (`noneLabel` offers "no choice", value '').
 *
 * The open list is a chunk of its own (./ModelPickerList.tsx), loaded when the button is pointed at, focused or
 * pressed; the first page carries the button only (docs/benchmarks.md, "cold start").
 */
import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { AUTO_MODEL_ID, AUTO_MODEL_NAME } from '../../protocol/auto-model';
import { useQuery } from '../engine';
import { NeedsBalance } from './NeedsBalance';
import { preloadOn } from './preload-on';

const loadList = () => import('./ModelPickerList');
const ModelPickerList = lazy(loadList);
/** Starts loading the open list (pointer over or focus on the button), without waiting on it. */
const preloadList = preloadOn(loadList);

export interface ModelPickerProps {
  value: string;
  onChange(id: string): void;
  models: readonly ModelInfo[];
  /** Accessible name of the control; 'Model' for the main picker. */
  label?: string;
  /** Model ids not offered (e.g. models already chosen). */
  exclude?: readonly string[];
  disabled?: boolean;
  /** When set, an option with this text and value '' comes first. */
  noneLabel?: string;
  /** Offer "Auto" first (value AUTO_MODEL_ID): the engine picks a model per prompt (protocol/auto-model.ts). */
  auto?: boolean;
  className?: string;
}

export function ModelPicker({ value, onChange, models, label = 'Model', exclude = [], disabled, noneLabel, auto = false, className }: ModelPickerProps) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const ids = useId();
  const labelId = `${ids}-label`;
  const valueId = `${ids}-value`;
  const listId = `${ids}-list`;
  const current = models.find((m) => m.id === value);
  // Paid models are marked while the balance cannot pay for them (issue 16 item 4); unknown session: no mark.
  const session = useQuery({ kind: 'session' });
  const locked = session?.session ? !session.canUsePaidModels : false;

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  function close() {
    setOpen(false);
    button.current?.focus();
  }

  return (
    <div className={`model-picker ${className ?? ''}`} ref={root}>
      <span id={labelId} className="visually-hidden">
        {label}
      </span>
      <button
        ref={button}
        type="button"
        role="combobox"
        className="model-picker-button"
        aria-labelledby={labelId}
        aria-describedby={valueId}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        data-value={value}
        disabled={disabled || models.length === 0}
        {...preloadList}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        <span id={valueId}>
          <ModelName name={models.length === 0 ? 'Loading models…' : (current?.name ?? (value === '' && noneLabel ? noneLabel : auto && value === AUTO_MODEL_ID ? AUTO_MODEL_NAME : value))} />
        </span>
        {current?.free && <span className="badge badge-free">Free</span>}
        {locked && current && !current.free && <NeedsBalance />}
        <span aria-hidden="true" className="chevron">
          ▾
        </span>
      </button>
      {open && (
        <Suspense fallback={<div className="model-popover" aria-busy="true" />}>
          <ModelPickerList
            value={value}
            models={models}
            label={label}
            exclude={exclude}
            noneLabel={noneLabel}
            auto={auto}
            ids={ids}
            locked={locked}
            onChoose={(id) => {
              onChange(id);
              close();
            }}
            onClose={close}
          />
        </Suspense>
      )}
    </div>
  );
}

/**
 * A model's name; an id-like name's publisher ("meta-llama/") in a span of its own, which a phone's header hides
 * from sight (still read out), so the row keeps the part that tells models apart.
 */
function ModelName({ name }: { name: string }) {
  const cut = name.lastIndexOf('/') + 1;
  if (cut <= 0 || cut >= name.length) return name;
  return (
    <>
      <span className="model-publisher">{name.slice(0, cut)}</span>
      {name.slice(cut)}
    </>
  );
}
