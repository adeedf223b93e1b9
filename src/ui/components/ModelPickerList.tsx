/**
 * The model picker's open list (./ModelPicker.tsx): the search box, the list controls (pinned, recent, visible,
 * categories, open source) and the options grouped by provider with their prices, context and capabilities. A chunk
 * of its own, loaded when the picker's button is pointed at, focused or pressed: the first page shows the button only.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { AUTO_MODEL_DESCRIPTION, AUTO_MODEL_ID, AUTO_MODEL_NAME } from '../../protocol/auto-model';
import { capabilityWords, filterModels, formatContextLength, formatPrice } from './model-info';
import { ModelListControls, ModelOptionButtons } from '../account/ModelListControls';
import { MODEL_KEYS, pickerGroups, pushRecent, useModelLists, writeStored } from '../account/model-lists';
import { NeedsBalance } from './NeedsBalance';

/** The Auto option: not a model, a choice the engine makes per prompt. */
const AUTO = 'auto' as const;

function idOf(option: ModelInfo | null | typeof AUTO): string {
  return option === AUTO ? AUTO_MODEL_ID : (option?.id ?? '');
}

export interface ModelPickerListProps {
  value: string;
  models: readonly ModelInfo[];
  label: string;
  exclude: readonly string[];
  noneLabel?: string;
  auto: boolean;
  /** The picker's useId: the list's and options' ids derive from it (the button's aria-controls names the list). */
  ids: string;
  /** Paid models get the "Needs balance" mark. */
  locked: boolean;
  /** An option was chosen (its id; '' for the none option). */
  onChoose(id: string): void;
  /** Escape or Tab: the list closes, the button takes the focus back. */
  onClose(): void;
}

export default function ModelPickerList({ value, models, label, exclude, noneLabel, auto, ids, locked, onChoose, onClose }: ModelPickerListProps) {
  const [query, setQuery] = useState('');
  const search = useRef<HTMLInputElement>(null);
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
  // The list opens on the current choice.
  const [active, setActive] = useState(() => Math.max(0, flat.findIndex((m) => idOf(m) === value)));

  useEffect(() => {
    search.current?.focus();
  }, []);

  useEffect(() => {
    document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- optionId derives from the stable useId
  }, [active]);

  function choose(model: ModelInfo | null | typeof AUTO) {
    if (model !== null && model !== AUTO) writeStored(MODEL_KEYS.recent, pushRecent(lists.recent, model.id));
    onChoose(idOf(model));
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
      onClose();
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
  );
}
