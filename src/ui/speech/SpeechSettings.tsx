/**
 * The speech settings (spec 001 section 3): Read replies aloud (autoGenerateAudio), the text-to-speech model
 * (preferredTTSModel, used by "Read aloud" and auto audio), its voice, speed and ElevenLabs sliders.
 */
import { useId } from 'react';
import type { ModelInfo } from '../../protocol/api';
import type { Preferences } from '../../protocol/preferences';
import { speechModel } from '../../protocol/speech-catalogue';
import { SpeechModelSettings } from './AudioControls';
import { audioModels } from './speech-state';

export function SpeechSettings({ preferences, models, save }: { preferences: Preferences; models: readonly ModelInfo[] | undefined; save(changes: Partial<Preferences>): void }) {
  const id = useId();
  const offered = audioModels(models);
  const preferred = offered.find((m) => m.id === preferences.preferredTTSModel) ?? offered.find((m) => m.offline) ?? offered[0];
  const model = preferred ? speechModel(preferred.id) : undefined;
  return (
    <>
      <div className="setting setting-toggle">
        <input id={id} type="checkbox" role="switch" checked={preferences.autoGenerateAudio} onChange={(e) => save({ autoGenerateAudio: e.target.checked })} />
        <label htmlFor={id}>Read replies aloud</label>
        <p className="setting-hint muted">When a reply you asked for finishes, it is spoken. Paid voices need a balance; without one nothing is generated.</p>
      </div>
      {model && (
        <div className="setting setting-wide">
          <SpeechModelSettings model={model} preferences={preferences} models={offered} modelLabel="Text-to-speech model" onModel={(m) => save({ preferredTTSModel: m })} />
          {preferred?.id !== preferences.preferredTTSModel && (
            <p className="setting-hint muted">{`${preferences.preferredTTSModel} is not offered by this server; ${preferred?.name ?? 'the offline voice'} is used instead.`}</p>
          )}
        </div>
      )}
    </>
  );
}
