/**
 * The model picker's list controls (spec 001 section 3 local storage keys): the "Open source only" switch, category
 * filters, "Show all models" for hidden ones, and on each option "Pin" / "Unpin" and "Hide".
 */
import type { ModelInfo } from '../../protocol/api';
import { capabilityWords } from '../components/model-info';
import { allCategories, MODEL_KEYS, toggle, writeStored, type ModelLists } from './model-lists';

/** A category in plain words (issue 16 item 6): 'Free', or the capability's words ('Sees images', 'Reasoning'). */
const label = (c: string) => (c === 'free' ? 'Free' : (capabilityWords([c])[0] ?? c.charAt(0).toUpperCase() + c.slice(1)));

export function ModelListControls({ models, lists, hidden }: { models: readonly ModelInfo[]; lists: ModelLists; hidden: number }) {
  // What every chat model does (chat, streaming, markdown) filters nothing and is left out, unless it was chosen before.
  const categories = allCategories(models).filter((c) => c === 'free' || capabilityWords([c]).length > 0 || lists.categories.includes(c));
  return (
    <div className="model-filters">
      <label className="model-filter-check">
        <input type="checkbox" checked={lists.openSourceOnly} onChange={(e) => writeStored(MODEL_KEYS.openSourceOnly, e.target.checked)} />
        Open source only
      </label>
      {categories.map((c) => (
        <button key={c} type="button" className="model-category" aria-pressed={lists.categories.includes(c)} onClick={() => writeStored(MODEL_KEYS.categories, toggle(lists.categories, c))}>
          {label(c)}
        </button>
      ))}
      {hidden > 0 && (
        <button type="button" className="model-category" onClick={() => writeStored(MODEL_KEYS.visible, null)}>
          Show all models ({hidden} hidden)
        </button>
      )}
    </div>
  );
}

export function ModelOptionButtons({ model, models, lists }: { model: ModelInfo; models: readonly ModelInfo[]; lists: ModelLists }) {
  const pinned = lists.pinned.includes(model.id);
  // Buttons inside an option: they act on their own and do not choose the model.
  const act = (fn: () => void) => (e: React.MouseEvent<HTMLButtonElement>) => {
    e.stopPropagation();
    // The keyboard stays in the search box (arrows, Enter, Escape keep working).
    e.currentTarget.closest('.model-popover')?.querySelector<HTMLInputElement>('input[type=search]')?.focus();
    fn();
  };
  return (
    <span className="model-option-buttons">
      <button type="button" tabIndex={-1} className="model-option-button" aria-pressed={pinned} aria-label={`${pinned ? 'Unpin' : 'Pin'} ${model.name}`} title={pinned ? 'Unpin' : 'Pin to the top'} onClick={act(() => writeStored(MODEL_KEYS.pinned, toggle(lists.pinned, model.id)))}>
        {pinned ? '★' : '☆'}
      </button>
      <button
        type="button"
        tabIndex={-1}
        className="model-option-button"
        aria-label={`Hide ${model.name}`}
        title="Hide from this list"
        onClick={act(() => writeStored(MODEL_KEYS.visible, (lists.visible ?? models.map((m) => m.id)).filter((id) => id !== model.id)))}
      >
        ×
      </button>
    </span>
  );
}
