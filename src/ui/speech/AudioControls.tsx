/**
 * The Audio mode's controls (spec 001 section 3, the text-to-speech catalogue): the speech model, its voice
 * (Kokoro's grouped by category), its speed where it has one, gpt-4o-mini-tts's voice instructions and ElevenLabs'
 * three sliders. Voice, speed and sliders are kept as preferences per model; the settings page shows the same.
 */
import { useSnapshot } from 'valtio';
import type { Preferences } from '../../protocol/preferences';
import type { ModelInfo } from '../../protocol/api';
import * as catalogue from '../../protocol/speech-catalogue';
import { SPEECH_MODELS, type SpeechModel } from '../../protocol/speech-catalogue';
import { engine, useQuery } from '../engine';
import { audioModels, choiceFor, currentAudioModel, setSpeechCatalogue, speechView } from './speech-state';

// This chunk carries the catalogue: the view's speech state reads it from here on.
setSpeechCatalogue(catalogue);

function save(changes: Partial<Preferences>): void {
  void engine((api) => api.setPreferences(changes));
}

/** Voice, speed and sliders of one model, saved as preferences. `modelLabel` names the model control. */
export function SpeechModelSettings({ model, preferences, models, modelLabel, onModel }: { model: SpeechModel; preferences: Preferences; models: readonly ModelInfo[]; modelLabel: string; onModel(id: string): void }) {
  const choice = choiceFor(model, preferences);
  const categories = model.voiceCategories;
  const voiceOptions = (list: typeof model.voices) => list.map((v) => <option key={v.id} value={v.id}>{v.name}</option>);
  const eleven = { ...choice };
  return (
    <div className="speech-settings">
      <label className="speech-field">
        <span>{modelLabel}</span>
        <select value={model.id} onChange={(e) => onModel(e.target.value)}>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
              {m.free ? '' : ` · $${speechPrice(m.id)}/1000 chars`}
            </option>
          ))}
        </select>
      </label>
      <label className="speech-field">
        <span>Voice</span>
        <select value={choice.voice} onChange={(e) => save({ ttsVoicePreferences: { ...preferences.ttsVoicePreferences, [model.id]: e.target.value } })}>
          {categories
            ? categories.map((c) => (
                <optgroup key={c} label={c}>
                  {voiceOptions(model.voices.filter((v) => v.category === c))}
                </optgroup>
              ))
            : voiceOptions(model.voices)}
        </select>
      </label>
      {model.supportsSpeed && model.speed && (
        <label className="speech-field">
          <span>Speed</span>
          <input
            type="range"
            min={model.speed.min}
            max={model.speed.max}
            step={model.speed.step}
            value={choice.speed}
            onChange={(e) => save({ ttsSpeedPreferences: { ...preferences.ttsSpeedPreferences, [model.id]: Number(e.target.value) } })}
          />
          <output>{choice.speed.toFixed(2).replace(/0$/, '')}×</output>
        </label>
      )}
      {model.additionalParams &&
        Object.entries(model.additionalParams).map(([key, p]) =>
          p.type === 'slider' ? (
            <label className="speech-field" key={key} title={p.description}>
              <span>{p.label}</span>
              <input
                type="range"
                min={p.min}
                max={p.max}
                step={p.step}
                value={Number(eleven[key as 'stability' | 'similarity_boost' | 'style'] ?? p.default)}
                onChange={(e) => {
                  const current = { stability: eleven.stability ?? 0.5, similarity_boost: eleven.similarity_boost ?? 0.75, style: eleven.style ?? 0 };
                  save({ elevenLabsSettings: { ...current, [key]: Number(e.target.value) } });
                }}
              />
              <output>{Number(eleven[key as 'stability' | 'similarity_boost' | 'style'] ?? p.default).toFixed(1)}</output>
            </label>
          ) : null,
        )}
    </div>
  );
}

const SPEECH_PRICES = new Map(SPEECH_MODELS.map((m) => [m.id, m.costPerThousandChars]));

/** USD per 1000 characters of a catalogue model, for the model list. */
function speechPrice(id: string): string {
  return SPEECH_PRICES.get(id) ?? '?';
}

/** The composer's Audio mode panel. */
export function AudioControls() {
  const models = useQuery({ kind: 'models' });
  const preferences = useQuery({ kind: 'preferences' });
  const snap = useSnapshot(speechView);
  const offered = audioModels(models?.models);
  const model = currentAudioModel(models?.models, preferences, snap.model);
  if (!preferences || !model) return <p className="mode-note" role="status">No text-to-speech model is available.</p>;
  return (
    <div className="audio-controls" role="group" aria-label="Audio settings">
      <SpeechModelSettings model={model} preferences={preferences} models={offered} modelLabel="Speech model" onModel={(id) => (speechView.model = id)} />
      {model.additionalParams?.instructions && (
        <label className="speech-field speech-instructions">
          <span>Voice instructions</span>
          <input type="text" value={snap.instructions} maxLength={2000} placeholder="e.g. calm and warm, a little slower" onChange={(e) => (speechView.instructions = e.target.value)} />
        </label>
      )}
      <p className="muted speech-note">
        {model.offline ? model.description : `${model.displayName}: up to ${model.maxChars.toLocaleString('en-US')} characters.`}
      </p>
    </div>
  );
}
