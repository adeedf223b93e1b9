/**
 * The model picker: a button (role combobox, named by `label`) that opens a searchable list of models grouped by
 * provider, each with its price per million tokens (input / output), context length and capabilities, the free
 * ones marked. Keyboard: Arrow keys move, Enter chooses, Escape closes; typing filters. Reusable for any choice
 * of model: the main model, the extra models of multi-model mode (`exclude` hides those already chosen), the
 * default model in Settings (`noneLabel` offers "no choice", value '').
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { AUTO_MODEL_DESCRIPTION, AUTO_MODEL_ID, AUTO_MODEL_NAME } from '../../protocol/auto-model';
import { capabilityWords, filterModels, formatContextLength, formatPrice } from './model-info';
import { useQuery } from '../engine';
import { ModelListControls, ModelOptionButtons } from '../account/ModelListControls';
import { MODEL_KEYS, pickerGroups, pushRecent, useModelLists, writeStored } from '../account/model-lists';

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

/** The Auto option: not a model, a choice the engine makes per prompt. */
const AUTO = 'auto' as const;

function idOf(option: ModelInfo | null | typeof AUTO): string {
  return option === AUTO ? AUTO_MODEL_ID : (option?.id ?? '');
}

/** The mark of a paid model the balance cannot pay for: a lock and "Needs balance" (its accessible text). */
function NeedsBalance() {
  return (
    <span className="badge badge-locked" title="A paid model: add funds to your balance to use it">
      <svg aria-hidden="true" viewBox="0 0 16 16" width="9" height="9" fill="currentColor">
        <path d="M4.5 7V5a3.5 3.5 0 0 1 7 0v2H12a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1h.5Zm1.5 0h4V5a2 2 0 0 0-4 0v2Z" />
      </svg>{' '}
      Needs balance
    </span>
  );
}

export function ModelPicker({ value, onChange, models, label = 'Model', exclude = [], disabled, noneLabel, auto = false, className }: ModelPickerProps) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const ids = useId();
  const labelId = `${ids}-label`;
  const valueId = `${ids}-value`;
  const listId = `${ids}-list`;
  const optionId = (i: number) => `${ids}-option-${i}`;

  const shown = useMemo(() => {
    const excluded = new Set(exclude);
    return filterModels(
      models.filter((m) => !excluded.has(m.id) || m.id === value),
      query,
    );
  }, [models, exclude, value, query]);
  // Pinned, recent, visible, category and open-source lists of local storage (spec 001 section 3).
  const lists = useModelLists();
  const { groups, hidden } = useMemo(() => pickerGroups(shown, lists, value), [shown, lists, value]);
  /** Options in display order (the none option first), for keyboard movement. */
  const autoShown = auto && (query === '' || AUTO_MODEL_NAME.toLowerCase().includes(query.trim().toLowerCase()));
  const flat: Array<ModelInfo | null | typeof AUTO> = useMemo(
    () => [...(autoShown ? [AUTO] : []), ...(noneLabel && query === '' ? [null] : []), ...groups.flatMap((g) => g.models)],
    [groups, noneLabel, query, autoShown],
  );
  const current = models.find((m) => m.id === value);
  // Paid models are marked while the balance cannot pay for them (issue 16 item 4); unknown session: no mark.
  const session = useQuery({ kind: 'session' });
  const locked = session?.session ? !session.canUsePaidModels : false;

  useEffect(() => {
    if (!open) return;
    search.current?.focus();
    const onDown = (e: MouseEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  useEffect(() => {
    if (open) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- optionId derives from the stable useId
  }, [active, open]);

  function openList() {
    setQuery('');
    const index = flat.findIndex((m) => idOf(m) === value);
    setActive(Math.max(0, index));
    setOpen(true);
  }

  function choose(model: ModelInfo | null | typeof AUTO) {
    if (model !== null && model !== AUTO) writeStored(MODEL_KEYS.recent, pushRecent(lists.recent, model.id));
    onChange(idOf(model));
    setOpen(false);
    button.current?.focus();
  }

  function onSearchKey(e: React.KeyboardEvent) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (flat.length === 0 ? 0 : (i + step + flat.length) % flat.length));
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      setActive(e.key === 'Home' ? 0 : Math.max(0, flat.length - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const model = flat[active];
      if (model !== undefined) choose(model);
    } else if (e.key === 'Escape' || e.key === 'Tab') {
      // Escape here only closes the list: it must not also stop a reply or close the drawer.
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
      }
      setOpen(false);
      button.current?.focus();
    }
  }

  let index = -1;
  const renderOption = (model: ModelInfo | null | typeof AUTO) => {
    index += 1;
    const i = index;
    const id = idOf(model);
    return (
      <div
        key={id || '(none)'}
        id={optionId(i)}
        role="option"
        aria-selected={id === value}
        data-value={id}
        data-active={i === active || undefined}
        className="model-option"
        onMouseMove={() => setActive(i)}
        onClick={() => choose(model)}
      >
        {model === AUTO ? (
          <>
            <span className="model-option-name">{AUTO_MODEL_NAME}</span>
            <span className="model-option-facts">
              <span>{AUTO_MODEL_DESCRIPTION}</span>
            </span>
          </>
        ) : model === null ? (
          <span className="model-option-name">{noneLabel}</span>
        ) : (
          <>
            <span className="model-option-name">
              {model.name}
              {model.free && <span className="badge badge-free">Free</span>}
              {model.offline && <span className="badge">Offline</span>}
              {locked && !model.free && <NeedsBalance />}
              <ModelOptionButtons model={model} models={models} lists={lists} />
            </span>
            <span className="model-option-facts">
              {!model.free && <span>{formatPrice(model)}</span>}
              {model.contextLength !== undefined && <span>{formatContextLength(model.contextLength)}</span>}
              {capabilityWords(model.capabilities).length > 0 && <span>{capabilityWords(model.capabilities).join(', ')}</span>}
            </span>
          </>
        )}
      </div>
    );
  };

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
        onClick={() => (open ? setOpen(false) : openList())}
        onKeyDown={(e) => {
          if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !open) {
            e.preventDefault();
            openList();
          }
        }}
      >
        <span id={valueId}>{models.length === 0 ? 'Loading models…' : (current?.name ?? (value === '' && noneLabel ? noneLabel : auto && value === AUTO_MODEL_ID ? AUTO_MODEL_NAME : value))}</span>
        {current?.free && <span className="badge badge-free">Free</span>}
        {locked && current && !current.free && <NeedsBalance />}
        <span aria-hidden="true" className="chevron">
          ▾
        </span>
      </button>
      {open && (
        <div className="model-popover">
          <input
            ref={search}
            type="search"
            className="model-search"
            aria-label="Search models"
            placeholder="Search models…"
            role="searchbox"
            aria-controls={listId}
            aria-activedescendant={flat.length > 0 ? optionId(active) : undefined}
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setActive(0);
            }}
            onKeyDown={onSearchKey}
          />
          <ModelListControls models={models} lists={lists} hidden={hidden} />
          <div role="listbox" id={listId} aria-label={label} className="model-list">
            {autoShown && renderOption(AUTO)}
            {noneLabel && query === '' && renderOption(null)}
            {groups.map((g) => (
              <div role="group" key={g.provider} aria-labelledby={`${ids}-group-${g.provider}`}>
                <div className="model-group-label" id={`${ids}-group-${g.provider}`} role="presentation">
                  {g.label}
                </div>
                {g.models.map(renderOption)}
              </div>
            ))}
            {flat.length === 0 && <p className="muted model-none">No model matches “{query}”.</p>}
          </div>
        </div>
      )}
    </div>
  );
}
