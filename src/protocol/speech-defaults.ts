/**
 * The few speech constants the first page needs (preferences' defaults, the Audio mode's default model, the spec's
 * notice strings), apart from the catalogue (./speech-catalogue.ts re-exports them), so that the page does not carry
 * the catalogue's voices and prices until the Audio mode or a read-aloud needs them. Pure.
 */

export const DEFAULT_TTS_MODEL = 'gpt-4o-mini-tts';
export const DEFAULT_AUDIO_MODEL = 'Kokoro-82m';
export const OFFLINE_VOICE_MODEL_ID = 'parley-offline-voice';

/** The spec's error and notice strings (spec 000 section 8, spec 001 section 4). */
export const SPEECH_TEXT = {
  pollingTimeout: 'Failed to generate audio - polling timeout',
  failed: 'Failed to generate audio',
  audioReadyTitle: 'Audio Ready',
  audioReadyText: 'Click here to play the audio response',
} as const;

/** The chosen reading of the ElevenLabs similarity_boost default (docs/decisions.md): 0.75; the other is 0.5. */
export const ELEVENLABS_SIMILARITY_DEFAULT = 0.75;
export const ELEVENLABS_DEFAULTS = { stability: 0.5, similarity_boost: ELEVENLABS_SIMILARITY_DEFAULT, style: 0 } as const;
export type ElevenLabsSettings = { stability: number; similarity_boost: number; style: number };
