/**
 * The Audio mode's choices in this tab (valtio, DESIGN rule 7): the speech model. Its voice, speed and ElevenLabs
 * sliders are preferences (spec 001 section 3: ttsVoicePreferences, ttsSpeedPreferences, elevenLabsSettings), so
 * they are engine data and reach every tab; the model chosen here is also the Audio mode's starting point elsewhere.
 */
import { proxy } from 'valtio';
import type { ModelInfo } from '../../protocol/api';
import type { SendMessageInput, SpeechChoice } from '../../protocol/engine';
import type { Preferences } from '../../protocol/preferences';
import type * as Catalogue from '../../protocol/speech-catalogue';
import type { SpeechModel } from '../../protocol/speech-catalogue';
import { DEFAULT_AUDIO_MODEL, ELEVENLABS_DEFAULTS, OFFLINE_VOICE_MODEL_ID } from '../../protocol/speech-defaults';
import { composer } from '../composer-state';

export const speechView = proxy({
  /** The Audio mode's model; '' = the default (the preferred TTS model, else Kokoro-82m, else the offline voice). */
  model: '',
  /** gpt-4o-mini-tts's voice instructions for the next request. */
  instructions: '',
  /** The speech catalogue (voices, speeds, prices) has arrived: a chunk of its own, loaded for the Audio mode. */
  catalogueLoaded: false,
});

let catalogue: typeof Catalogue | null = null;

/** Makes the catalogue available here (the Audio mode's controls register it as their chunk loads). */
export function setSpeechCatalogue(loaded: typeof Catalogue): void {
  if (catalogue) return;
  catalogue = loaded;
  speechView.catalogueLoaded = true;
}

/** Loads the speech catalogue's chunk (once); `currentAudioModel` answers null until it is here. */
export async function loadSpeechCatalogue(): Promise<void> {
  if (!catalogue) setSpeechCatalogue(await import('../../protocol/speech-catalogue'));
}

/** The speech models the gateway offers. */
export function audioModels(models: readonly ModelInfo[] | undefined): ModelInfo[] {
  return (models ?? []).filter((m) => m.modality === 'audio');
}

/**
 * The Audio mode's model: the one chosen here, else the preferred one, else the spec's default, else the offline
 * voice. A component passes `chosen` from its snapshot so that a change of model renders it again.
 */
export function currentAudioModel(models: readonly ModelInfo[] | undefined, preferences: Preferences | undefined, chosen: string = speechView.model): SpeechModel | null {
  const offered = audioModels(models);
  const pick = (id: string | undefined) => (id ? offered.find((m) => m.id === id) : undefined);
  const info = pick(chosen) ?? pick(preferences?.preferredTTSModel) ?? pick(DEFAULT_AUDIO_MODEL) ?? pick(OFFLINE_VOICE_MODEL_ID) ?? offered[0];
  if (info && !catalogue) void loadSpeechCatalogue().catch(() => undefined);
  return info ? (catalogue?.speechModel(info.id) ?? null) : null;
}

/** A model's voice, speed and sliders from the preferences. */
export function choiceFor(model: SpeechModel, preferences: Preferences | undefined): Required<Pick<SpeechChoice, 'voice' | 'speed'>> & SpeechChoice {
  const voice = preferences?.ttsVoicePreferences[model.id] ?? model.defaultSettings.voice;
  const speed = preferences?.ttsSpeedPreferences[model.id] ?? model.speed?.default ?? 1;
  const choice: Required<Pick<SpeechChoice, 'voice' | 'speed'>> & SpeechChoice = { voice: model.voices.some((v) => v.id === voice) ? voice : model.defaultSettings.voice, speed };
  if (model.provider === 'elevenlabs') Object.assign(choice, { ...ELEVENLABS_DEFAULTS, ...preferences?.elevenLabsSettings });
  if (model.additionalParams?.instructions && speechView.instructions.trim()) choice.instructions = speechView.instructions.trim();
  return choice;
}

/**
 * What a send in the Audio mode adds: the speech model (instead of the text model) and its choices. Waits for the
 * catalogue when a send comes before its chunk.
 */
export async function audioSendExtras(models: readonly ModelInfo[] | undefined, preferences: Preferences | undefined): Promise<Partial<SendMessageInput>> {
  if (composer.mode !== 'audio') return {};
  await loadSpeechCatalogue();
  const model = currentAudioModel(models, preferences);
  return model ? { model: model.id, speech: choiceFor(model, preferences) } : {};
}

/** The header's model picker in the Audio mode (spec 000 section 4: a model sets its mode): the speech models. */
export function audioPicker(models: readonly ModelInfo[] | undefined, preferences: Preferences | undefined, chosen: string): { model: string; models: ModelInfo[] } {
  return { model: currentAudioModel(models, preferences, chosen)?.id ?? '', models: audioModels(models) };
}
