/**
 * The model picker's lists kept in local storage under the spec's keys (spec 001 section 3): pinnedModels,
 * recentlyUsedModels, visibleModels, modelCategories and showOpenSourceOnly. Per browser (every tab of it sees a
 * change through the storage event), not engine data: the spec names them as local storage. Pure helpers below.
 */
import { useSyncExternalStore } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { groupByProvider, type ProviderGroup } from '../components/model-info';

export const MODEL_KEYS = {
  pinned: 'pinnedModels',
  recent: 'recentlyUsedModels',
  visible: 'visibleModels',
  categories: 'modelCategories',
  openSourceOnly: 'showOpenSourceOnly',
} as const;
type Key = (typeof MODEL_KEYS)[keyof typeof MODEL_KEYS];

/** Ours: how many recently used models the picker lists. */
export const RECENT_MAX = 5;

const listeners = new Set<() => void>();
const cache = new Map<string, { raw: string | null; value: unknown }>();
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (e: StorageEvent) => {
    if (e.key === null || Object.values(MODEL_KEYS).includes(e.key as Key)) for (const l of listeners) l();
  });
}

function read<T>(key: Key, valid: (v: unknown) => v is T, fallback: T): T {
  let raw: string | null = null;
  try {
    raw = localStorage.getItem(key);
  } catch {
    raw = null;
  }
  const hit = cache.get(key);
  if (hit && hit.raw === raw) return hit.value as T;
  let value: T = fallback;
  try {
    const parsed: unknown = raw === null ? fallback : JSON.parse(raw);
    if (valid(parsed)) value = parsed;
  } catch {
    value = fallback;
  }
  cache.set(key, { raw, value });
  return value;
}

export function writeStored(key: Key, value: unknown): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or blocked: the choice lasts for this page only.
  }
  for (const l of listeners) l();
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isStringsOrNull = (v: unknown): v is string[] | null => v === null || isStrings(v);
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export interface ModelLists {
  pinned: string[];
  recent: string[];
  /** null: every model is visible (nothing hidden yet). */
  visible: string[] | null;
  categories: string[];
  openSourceOnly: boolean;
}

const NONE: string[] = [];
export function readModelLists(): ModelLists {
  return {
    pinned: read(MODEL_KEYS.pinned, isStrings, NONE),
    recent: read(MODEL_KEYS.recent, isStrings, NONE),
    visible: read(MODEL_KEYS.visible, isStringsOrNull, null),
    categories: read(MODEL_KEYS.categories, isStrings, NONE),
    openSourceOnly: read(MODEL_KEYS.openSourceOnly, isBool, false),
  };
}

let snapshot: ModelLists | null = null;
function currentLists(): ModelLists {
  const next = readModelLists();
  if (snapshot && (Object.keys(next) as (keyof ModelLists)[]).every((k) => next[k] === snapshot?.[k])) return snapshot;
  snapshot = next;
  return next;
}

export function useModelLists(): ModelLists {
  return useSyncExternalStore(subscribe, currentLists);
}

export function pushRecent(list: readonly string[], id: string, max = RECENT_MAX): string[] {
  return [id, ...list.filter((x) => x !== id)].slice(0, max);
}

export function toggle(list: readonly string[], id: string): string[] {
  return list.includes(id) ? list.filter((x) => x !== id) : [...list, id];
}

/** Open-weight model families (ours: the catalogue does not say); built-in offline models are our own code. */
const OPEN_FAMILIES = /(llama|mistral|mixtral|codestral-mamba|qwen|gemma|deepseek|phi-?\d|olmo|falcon|gpt-oss|hermes|yi-|glm|kimi|nemotron|granite|smollm|command-r|dbrx|starcoder)/i;
export function isOpenSource(model: Pick<ModelInfo, 'id' | 'name' | 'provider' | 'offline'>): boolean {
  return model.offline || model.provider === 'ollama' || OPEN_FAMILIES.test(model.id) || OPEN_FAMILIES.test(model.name);
}

/** Categories a model belongs to: 'free' and each of its capabilities. */
export function categoriesOf(model: Pick<ModelInfo, 'free' | 'capabilities'>): string[] {
  return [...(model.free ? ['free'] : []), ...model.capabilities];
}

/** Every category the catalogue has, free first, then capabilities in alphabetical order. */
export function allCategories(models: readonly ModelInfo[]): string[] {
  const set = new Set<string>();
  for (const m of models) for (const c of m.capabilities) set.add(c);
  return [...(models.some((m) => m.free) ? ['free'] : []), ...[...set].sort()];
}

/**
 * What the picker lists: pinned models, then recent ones, then the rest by provider; filtered by visibility, the
 * open-source switch and the chosen categories (any of them). The chosen model always stays listed.
 */
export function pickerGroups(models: readonly ModelInfo[], lists: ModelLists, value: string): { groups: ProviderGroup[]; hidden: number } {
  const visible = lists.visible === null ? null : new Set(lists.visible);
  const hidden = visible === null ? 0 : models.filter((m) => !visible.has(m.id) && m.id !== value).length;
  const shown = models.filter((m) => {
    if (m.id === value) return true;
    if (visible !== null && !visible.has(m.id)) return false;
    if (lists.openSourceOnly && !isOpenSource(m)) return false;
    if (lists.categories.length > 0 && !categoriesOf(m).some((c) => lists.categories.includes(c))) return false;
    return true;
  });
  const byId = new Map(shown.map((m) => [m.id, m]));
  const pinned = lists.pinned.map((id) => byId.get(id)).filter((m): m is ModelInfo => m !== undefined);
  const pinnedIds = new Set(pinned.map((m) => m.id));
  const recent = lists.recent.map((id) => byId.get(id)).filter((m): m is ModelInfo => m !== undefined && !pinnedIds.has(m.id));
  const lead = new Set([...pinnedIds, ...recent.map((m) => m.id)]);
  const groups: ProviderGroup[] = [];
  if (pinned.length > 0) groups.push({ provider: 'pinned', label: 'Pinned', models: pinned });
  if (recent.length > 0) groups.push({ provider: 'recent', label: 'Recently used', models: recent });
  groups.push(...groupByProvider(shown.filter((m) => !lead.has(m.id))));
  return { groups, hidden };
}
