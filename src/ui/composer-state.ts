/**
 * Ephemeral state of the composer (valtio, DESIGN rule 7): the mode, the extra models of multi-model mode and the
 * web-search flag, and the conversation page's address parameters (spec 000 section 2) that set them.
 */
import { proxy } from 'valtio';
import type { Mode } from '../events/model';
import type { ModelInfo, Modality } from '../protocol/api';
import type { MessageView } from '../protocol/engine';
import { MAX_EXTRA_MODELS } from '../protocol/multi-limits';

export const MODES: readonly { id: Mode; label: string }[] = [
  { id: 'chat', label: 'Chat' },
  { id: 'image', label: 'Image' },
  { id: 'video', label: 'Video' },
  { id: 'audio', label: 'Audio' },
  { id: 'voice', label: 'Voice' },
];

export const composer = proxy({
  mode: 'chat' as Mode,
  /** Multi-model mode: up to 4 extra text models, no duplicates (spec 000 section 5). */
  extraModels: [] as string[],
  /** online=true turns it on, source=translate off (spec 000 section 2). No search provider exists yet. */
  webSearch: false,
  /**
   * The instructions chosen for the new conversation before its first message ('' = 'Standard'); null = none chosen,
   * so it starts with the default instructions of Settings (issue 16). Sent with the first message, then cleared.
   */
  newInstructions: null as string | null,
});

/** The instructions a new conversation would start with: the ones chosen for it, else the default ones. */
export function newConversationInstructions(chosen: string | null, defaultInstructions: string | undefined): string {
  return chosen ?? defaultInstructions ?? '';
}

const MODALITY_MODE: Record<Modality, Mode> = { text: 'chat', image: 'image', video: 'video', audio: 'audio' };

/** Spec 000 section 4: choosing a model sets the matching mode; an image, video or audio model ends multi-model. */
export function modeForModel(model: Pick<ModelInfo, 'modality'>): Mode {
  return MODALITY_MODE[model.modality];
}

export function applyModelChoice(model: Pick<ModelInfo, 'modality'>): void {
  composer.mode = modeForModel(model);
  if (model.modality !== 'text') composer.extraModels = [];
}

export function addExtraModel(id: string): boolean {
  if (composer.extraModels.length >= MAX_EXTRA_MODELS || composer.extraModels.includes(id)) return false;
  composer.extraModels = [...composer.extraModels, id];
  return true;
}

/**
 * The model "Add model" adds: the first text model not chosen yet. Spec 000 section 6: without a balance above the
 * paid-use threshold only free models can be used, so then a free one comes first; a paid one only when no free
 * one is left (the caller then says it needs funds).
 */
export function nextExtraModel<M extends { id: string; free: boolean }>(textModels: readonly M[], chosen: ReadonlySet<string>, canUsePaidModels: boolean): M | undefined {
  const open = textModels.filter((m) => !chosen.has(m.id));
  return (canUsePaidModels ? undefined : open.find((m) => m.free)) ?? open[0];
}

export function removeExtraModel(id: string): void {
  composer.extraModels = composer.extraModels.filter((m) => m !== id);
}

export interface AddressParams {
  mode: Mode | null;
  model: string | null;
  /** true: online=true; false: source=translate; null: neither. */
  webSearch: boolean | null;
  /** Text of transcriptId's session storage entry (the entry is removed). */
  transcript: string | null;
  /** A mode value that is not one of the five. */
  badMode: string | null;
}

/** Reads the conversation page's query parameters (spec 000 section 2). Removes the transcript entry it reads. */
export function readAddress(search: string, storage: Pick<Storage, 'getItem' | 'removeItem'> | null): AddressParams {
  const q = new URLSearchParams(search);
  const rawMode = q.get('mode');
  const mode = MODES.find((m) => m.id === rawMode)?.id ?? null;
  let webSearch: boolean | null = null;
  if (q.get('online') === 'true') webSearch = true;
  if (q.get('source') === 'translate') webSearch = false;
  let transcript: string | null = null;
  const key = q.get('transcriptId');
  if (key && storage) {
    transcript = storage.getItem(key);
    storage.removeItem(key);
  }
  return { mode, model: q.get('model'), webSearch, transcript, badMode: rawMode !== null && mode === null ? rawMode : null };
}

/**
 * The models of the conversation's last turn, in their columns' order: the replies after the last user message
 * that share its multi-model request (one model for a single-model turn; none before any reply).
 */
export function lastTurnModels(messages: readonly Pick<MessageView, 'role' | 'model' | 'multiModelRequest'>[]): string[] {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]?.role !== 'user') i--;
  const replies = messages.slice(i + 1).filter((m) => m.role === 'assistant');
  const group = replies[0]?.multiModelRequest;
  if (group === undefined) return replies.length > 0 ? [replies.at(-1)?.model ?? ''] : [];
  const ids: string[] = [];
  for (const m of replies) if (m.multiModelRequest === group && !ids.includes(m.model)) ids.push(m.model);
  return ids;
}
