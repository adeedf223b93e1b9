import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TTS_MODEL, ELEVENLABS_DEFAULTS, KOKORO_CATEGORIES, KOKORO_VOICES_25, OPENAI_AUDIO_FORMATS, SPEECH_CHUNK_CHARS, SPEECH_MODELS, SPEECH_TEXT, TTS_MAX_POLLS, TTS_POLL_MS, speechChars, speechCostMicro, speechModel, speechSpeed,
} from '../../../src/protocol/speech-catalogue';
import { DEFAULT_PREFERENCES } from '../../../src/protocol/preferences';

/** Spec 001 section 3's table, section 5's limits and section 9's costs and tiers, row by row. */
const SPEC: [id: string, voices: number, defaultVoice: string, speed: [number, number, number] | null, cost: string, maxChars: number, tier: string][] = [
  ['tts-1', 6, 'alloy', [0.25, 4, 0.25], '0.015', 4096, 'standard'],
  ['tts-1-hd', 6, 'alloy', [0.25, 4, 0.25], '0.03', 4096, 'premium'],
  ['gpt-4o-mini-tts', 11, 'alloy', null, '0.0006', 4096, 'basic'],
  ['gemini-2.5-flash-preview-tts', 30, 'Kore', null, '0.0301', 10000, 'basic'],
  ['gemini-2.5-pro-preview-tts', 30, 'Kore', null, '0.0601', 10000, 'premium'],
  ['Kokoro-82m', 46, 'af_bella', [0.5, 2, 0.1], '0.001', 10000, 'standard'],
  ['Elevenlabs-Turbo-V2.5', 21, 'Rachel', [0.7, 1.2, 0.1], '0.06', 10000, 'standard'],
];

describe('the speech catalogue', () => {
  it.each(SPEC)('%s: voices, default voice, speed, cost, limit and tier as the spec says', (id, voices, defaultVoice, speed, cost, maxChars, tier) => {
    const m = speechModel(id);
    expect(m).toBeDefined();
    if (!m) return;
    expect(m.voices).toHaveLength(voices);
    expect(new Set(m.voices.map((v) => v.id)).size).toBe(voices);
    expect(m.defaultSettings).toEqual({ voice: defaultVoice, speed: 1 });
    expect(m.voices.some((v) => v.id === defaultVoice)).toBe(true);
    expect(m.supportsSpeed).toBe(speed !== null);
    if (speed) expect(m.speed).toEqual({ min: speed[0], max: speed[1], step: speed[2], default: 1 });
    expect(m.costPerThousandChars).toBe(cost);
    expect(m.maxChars).toBe(maxChars);
    expect(m.tier).toBe(tier);
  });

  it('Kokoro has categories American, British, French, Hindi, Italian, Japanese, Mandarin by gender; the 25 reading is one switch away', () => {
    const k = speechModel('Kokoro-82m');
    expect(KOKORO_CATEGORIES).toEqual(['American', 'British', 'French', 'Hindi', 'Italian', 'Japanese', 'Mandarin']);
    expect(k?.voices.every((v) => KOKORO_CATEGORIES.some((c) => v.category === `${c} Female` || v.category === `${c} Male`))).toBe(true);
    expect(KOKORO_VOICES_25).toHaveLength(25);
  });

  it('ElevenLabs sliders 0 to 1 step 0.1, defaults 0.5, 0.75, 0; providers; the other constants', () => {
    const e = speechModel('Elevenlabs-Turbo-V2.5');
    expect(Object.entries(e?.additionalParams ?? {}).map(([k, p]) => [k, p.min, p.max, p.step, p.default])).toEqual([
      ['stability', 0, 1, 0.1, 0.5],
      ['similarity_boost', 0, 1, 0.1, 0.75],
      ['style', 0, 1, 0.1, 0],
    ]);
    expect(ELEVENLABS_DEFAULTS).toEqual({ stability: 0.5, similarity_boost: 0.75, style: 0 });
    expect(speechModel('gpt-4o-mini-tts')?.additionalParams?.instructions?.type).toBe('text');
    expect(SPEECH_MODELS.map((m) => m.provider)).toEqual(['openai', 'openai', 'openai', 'google', 'google', 'replicate', 'elevenlabs', 'offline']);
    expect(OPENAI_AUDIO_FORMATS).toEqual(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);
    expect([SPEECH_CHUNK_CHARS, TTS_POLL_MS, TTS_MAX_POLLS]).toEqual([3900, 3000, 60]);
    expect(SPEECH_TEXT.pollingTimeout).toBe('Failed to generate audio - polling timeout');
    expect([SPEECH_TEXT.audioReadyTitle, SPEECH_TEXT.audioReadyText]).toEqual(['Audio Ready', 'Click here to play the audio response']);
    expect(DEFAULT_TTS_MODEL).toBe('gpt-4o-mini-tts');
    expect(DEFAULT_PREFERENCES).toMatchObject({ autoGenerateAudio: false, preferredTTSModel: 'gpt-4o-mini-tts', ttsVoicePreferences: {}, ttsSpeedPreferences: {}, elevenLabsSettings: { stability: 0.5, similarity_boost: 0.75, style: 0 } });
  });

  it('the offline voice is labelled as built in and not a model, free', () => {
    const o = speechModel('parley-offline-voice');
    expect(o?.displayName).toBe('Parley Offline Voice (built-in, not an AI model)');
    expect(o?.offline).toBe(true);
    expect(o?.costPerThousandChars).toBe('0');
  });

  it('costs characters x cost per 1000, rounded up to the micro-dollar, counting code points', () => {
    expect(speechCostMicro({ costPerThousandChars: '0.0006' }, 10_000)).toBe(6000n);
    expect(speechCostMicro({ costPerThousandChars: '0.015' }, 1)).toBe(15n);
    expect(speechCostMicro({ costPerThousandChars: '0.0006' }, 1)).toBe(1n);
    expect(speechCostMicro({ costPerThousandChars: '0' }, 10_000)).toBe(0n);
    expect(speechChars('a🙂b')).toBe(3);
    expect(speechSpeed(speechModel('tts-1')!, 9)).toBe(4);
    expect(speechSpeed(speechModel('Kokoro-82m')!, 1.26)).toBe(1.3);
    expect(speechSpeed(speechModel('gpt-4o-mini-tts')!, 2)).toBe(1);
  });
});
