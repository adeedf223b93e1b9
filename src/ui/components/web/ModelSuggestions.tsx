/**
 * Recommended models on an empty conversation, beside the starter prompts (spec 000 section 9: 20 models fetched,
 * 15 used): the gateway ranks them (GET /api/suggestions?kind=models), the view shows the first
 * MODEL_SUGGESTION_COUNTS.used still in the catalogue as chips; choosing one makes it the conversation's model.
 */
import { useEffect, useState } from 'react';
import type { ModelInfo } from '../../../protocol/api';
import { shownModelSuggestions } from '../../../protocol/web-limits';
import { engine } from '../../engine';

export function ModelSuggestions({ models, current, onPick }: { models: readonly ModelInfo[]; current: string; onPick(id: string): void }) {
  const [fetched, setFetched] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    void engine((api) => api.modelSuggestions()).then((ids) => {
      if (live) setFetched(ids);
    });
    return () => {
      live = false;
    };
  }, []);
  const byId = new Map(models.map((m) => [m.id, m]));
  const shown = shownModelSuggestions(fetched, new Set(byId.keys()));
  if (shown.length === 0) return null;
  return (
    <section className="model-suggestions" aria-label="Recommended models">
      <h3 className="muted">Recommended models</h3>
      <ul>
        {shown.map((id) => {
          const m = byId.get(id) as ModelInfo;
          return (
            <li key={id}>
              <button type="button" className="model-suggestion" aria-pressed={id === current} onClick={() => onPick(id)}>
                {m.name}
                {m.free && <span className="badge badge-free">Free</span>}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
