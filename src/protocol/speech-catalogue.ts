/**
 * The text-to-speech catalogue of spec 001 (section 3 "Speech model entry" and "Text-to-speech catalogue", section 5
 * "Speech", section 9 costs and defaults), as data shared by the gateway (prices, limits, validation), the engine
 * (chunking, the balance rule) and the view (the Audio mode's controls, the settings page). Pure: no I/O.
 *
 * Where the spec gives two readings (docs/decisions.md), the chosen one is a constant here:
 *  - Kokoro voices: 46 with categories (KOKORO_VOICE_READING = '46'); the 25-voice catalogue view is one change away.
 *  - ElevenLabs similarity_boost default: 0.75 (ELEVENLABS_SIMILARITY_DEFAULT); the other reading is 0.5.
 * The voices' ids are the providers' own where the spec does not name them (it gives counts, not names).
 */

export type SpeechProvider = 'openai' | 'google' | 'replicate' | 'fal' | 'elevenlabs' | 'offline';
export type SpeechTier = 'standard' | 'basic' | 'premium' | 'offline';

export interface SpeechVoice {
  id: string;
  name: string;
  gender?: 'female' | 'male' | 'neutral';
  language?: string;
  accent?: string;
  /** Kokoro only (the 46-voice reading): American, British, French, Hindi, Italian, Japanese, Mandarin. */
  category?: string;
  /** The provider's own id when it differs from `id` (ElevenLabs voice ids). */
  providerVoiceId?: string;
}

export interface SpeechParam {
  label: string;
  type: 'slider' | 'text';
  default: number | string;
  min?: number;
  max?: number;
  step?: number;
  options?: string[];
  description: string;
}

export interface SpeechSpeed {
  min: number;
  max: number;
  step: number;
  default: number;
}

/** Spec 001 section 3, "Speech model entry", plus the client view's fields (defaultVoice, supportsSpeed, speed). */
export interface SpeechModel {
  /** The model id (name). */
  id: string;
  displayName: string;
  description: string;
  provider: SpeechProvider;
  tier: SpeechTier;
  /** USD per 1000 characters, as the spec writes it. */
  costPerThousandChars: string;
  /** Characters one request may carry (spec 001 section 5). */
  maxChars: number;
  voices: SpeechVoice[];
  /** Kokoro only. */
  voiceCategories?: string[];
  defaultSettings: { voice: string; speed: number };
  supportsSpeed: boolean;
  speed?: SpeechSpeed;
  additionalParams?: Record<string, SpeechParam>;
  /** Built into Parley: runs with no key and no network, and is not an AI model. */
  offline?: boolean;
}

/** Spec 001 section 9: speech text chunk 3900 characters; TTS polling every 3 s, at most 60 tries. */
export const SPEECH_CHUNK_CHARS = 3900;
export const TTS_POLL_MS = 3000;
export const TTS_MAX_POLLS = 60;
/** Spec 001 section 5: 10000 for Kokoro and ElevenLabs; 4096 for the OpenAI models. */
export const LONG_TEXT_LIMIT = 10_000;
export const OPENAI_TEXT_LIMIT = 4096;
/** Spec 001 section 3: OpenAI audio format options (default mp3). */
export const OPENAI_AUDIO_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
export const DEFAULT_AUDIO_FORMAT = 'mp3';
/** Spec 001 section 9: preferredTTSModel gpt-4o-mini-tts. Spec 000 section 9: default audio model Kokoro-82m. */
export { DEFAULT_TTS_MODEL, DEFAULT_AUDIO_MODEL, OFFLINE_VOICE_MODEL_ID, SPEECH_TEXT, ELEVENLABS_SIMILARITY_DEFAULT, ELEVENLABS_DEFAULTS } from './speech-defaults';
export type { ElevenLabsSettings } from './speech-defaults';
import { ELEVENLABS_DEFAULTS, OFFLINE_VOICE_MODEL_ID } from './speech-defaults';

const slider = (label: string, def: number, description: string): SpeechParam => ({ label, type: 'slider', default: def, min: 0, max: 1, step: 0.1, description });

const OPENAI_VOICE_IDS = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'];
const MINI_TTS_VOICE_IDS = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse'];
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const named = (ids: readonly string[]): SpeechVoice[] => ids.map((id) => ({ id, name: cap(id), language: 'en' }));

/** Gemini's 30 prebuilt voices, with the style Google gives each. */
const GEMINI_VOICES: [string, string][] = [
  ['Zephyr', 'Bright'], ['Puck', 'Upbeat'], ['Charon', 'Informative'], ['Kore', 'Firm'], ['Fenrir', 'Excitable'],
  ['Leda', 'Youthful'], ['Orus', 'Firm'], ['Aoede', 'Breezy'], ['Callirrhoe', 'Easy-going'], ['Autonoe', 'Bright'],
  ['Enceladus', 'Breathy'], ['Iapetus', 'Clear'], ['Umbriel', 'Easy-going'], ['Algieba', 'Smooth'], ['Despina', 'Smooth'],
  ['Erinome', 'Clear'], ['Algenib', 'Gravelly'], ['Rasalgethi', 'Informative'], ['Laomedeia', 'Upbeat'], ['Achernar', 'Soft'],
  ['Alnilam', 'Firm'], ['Schedar', 'Even'], ['Gacrux', 'Mature'], ['Pulcherrima', 'Forward'], ['Achird', 'Friendly'],
  ['Zubenelgenubi', 'Casual'], ['Vindemiatrix', 'Gentle'], ['Sadachbia', 'Lively'], ['Sadaltager', 'Knowledgeable'], ['Sulafat', 'Warm'],
];

/** Kokoro's voice categories in the 46-voice reading, each "{category} {gender}" in the view. */
export const KOKORO_CATEGORIES = ['American', 'British', 'French', 'Hindi', 'Italian', 'Japanese', 'Mandarin'] as const;
const KOKORO_BY_CATEGORY: Record<(typeof KOKORO_CATEGORIES)[number], { lang: string; female: string[]; male: string[] }> = {
  American: { lang: 'en-US', female: ['af_alloy', 'af_aoede', 'af_bella', 'af_heart', 'af_jessica', 'af_kore', 'af_nicole', 'af_nova', 'af_river', 'af_sarah', 'af_sky'], male: ['am_adam', 'am_echo', 'am_eric', 'am_fenrir', 'am_liam', 'am_michael', 'am_onyx', 'am_puck'] },
  British: { lang: 'en-GB', female: ['bf_alice', 'bf_emma', 'bf_isabella', 'bf_lily'], male: ['bm_daniel', 'bm_fable', 'bm_george', 'bm_lewis'] },
  French: { lang: 'fr', female: ['ff_siwis'], male: [] },
  Hindi: { lang: 'hi', female: ['hf_alpha', 'hf_beta'], male: ['hm_omega', 'hm_psi'] },
  Italian: { lang: 'it', female: ['if_sara'], male: ['im_nicola'] },
  Japanese: { lang: 'ja', female: ['jf_alpha', 'jf_gongitsune', 'jf_nezumi', 'jf_tebukuro'], male: ['jm_kumo'] },
  Mandarin: { lang: 'zh', female: ['zf_xiaobei', 'zf_xiaoni', 'zf_xiaoxiao', 'zf_xiaoyi'], male: ['zm_yunjian', 'zm_yunxi', 'zm_yunyang'] },
};

function kokoroName(id: string): string {
  return cap(id.slice(3));
}

/** The 46-voice reading: every voice of the seven categories, by gender. */
export const KOKORO_VOICES_46: SpeechVoice[] = KOKORO_CATEGORIES.flatMap((category) => {
  const c = KOKORO_BY_CATEGORY[category];
  const one = (gender: 'female' | 'male') => (id: string): SpeechVoice => ({ id, name: kokoroName(id), gender, language: c.lang, category: `${category} ${gender === 'female' ? 'Female' : 'Male'}` });
  return [...c.female.map(one('female')), ...c.male.map(one('male'))];
});

/** The catalogue view's 25-voice reading: the American and British voices (languages listed as en, es, fr, de, ja, zh, ko). */
export const KOKORO_VOICES_25: SpeechVoice[] = KOKORO_VOICES_46.filter((v) => v.category?.startsWith('American') || ['bf_alice', 'bf_emma', 'bf_isabella', 'bf_lily', 'bm_george', 'bm_lewis'].includes(v.id)).map(({ category: _c, ...v }) => v);
export const KOKORO_LANGUAGES_25 = ['en', 'es', 'fr', 'de', 'ja', 'zh', 'ko'] as const;

/** docs/decisions.md: the 46-voice reading. Change to '25' for the catalogue view's list. */
export const KOKORO_VOICE_READING: '46' | '25' = '46';

/** ElevenLabs' 21 premade voices (name, the API's voice id). */
const ELEVENLABS_VOICES: [string, string, 'female' | 'male'][] = [
  ['Rachel', '21m00Tcm4TlvDq8ikWAM', 'female'], ['Drew', '29vD33N1CtxCmqQRPOHJ', 'male'], ['Clyde', '2EiwWnXFnvU5JabPnv8n', 'male'],
  ['Paul', '5Q0t7uMcjvnagumLfvZi', 'male'], ['Domi', 'AZnzlk1XvdvUeBnXmlld', 'female'], ['Dave', 'CYw3kZ02Hs0563khs1Fj', 'male'],
  ['Fin', 'D38z5RcWu1voky8WS1ja', 'male'], ['Sarah', 'EXAVITQu4vr4xnSDxMaL', 'female'], ['Antoni', 'ErXwobaYiN019PkySvjV', 'male'],
  ['Thomas', 'GBv7mTt0atIp3Br8iCZE', 'male'], ['Charlie', 'IKne3meq5aSn9XLyUdCD', 'male'], ['George', 'JBFqnCBsd6RMkjVDRZzb', 'male'],
  ['Emily', 'LcfcDJNUP1GQjkzn1xUU', 'female'], ['Elli', 'MF3mGyEYCl7XYWbV9V6O', 'female'], ['Callum', 'N2lVS1w4EtoT3dr4eOWO', 'male'],
  ['Patrick', 'ODq5zmih8GrVes37Dizd', 'male'], ['Harry', 'SOYHLrjzK2X1ezoPC6cr', 'male'], ['Liam', 'TX3LPaxmHKxFdv7VOQHJ', 'male'],
  ['Dorothy', 'ThT5KcBeYPX3keUQqHPh', 'female'], ['Josh', 'TxGEqnHWrfWFTfGW9XjX', 'male'], ['Arnold', 'VR6AewLTigWG4xSOukaG', 'male'],
];

/** The built-in voice's eSpeak NG voices (src/server/speech/providers/tts-offline.ts). */
export const OFFLINE_VOICES: SpeechVoice[] = [
  { id: 'en-us', name: 'English (American)', language: 'en-US' },
  { id: 'en-gb', name: 'English (British)', language: 'en-GB' },
  { id: 'fr', name: 'French', language: 'fr' },
  { id: 'de', name: 'German', language: 'de' },
  { id: 'es', name: 'Spanish', language: 'es' },
  { id: 'it', name: 'Italian', language: 'it' },
  { id: 'pt', name: 'Portuguese', language: 'pt' },
  { id: 'hi', name: 'Hindi', language: 'hi' },
];

const geminiModel = (id: string, displayName: string, tier: SpeechTier, cost: string): SpeechModel => ({
  id,
  displayName,
  description: `Google ${displayName}: expressive multi-speaker speech (preview).`,
  provider: 'google',
  tier,
  costPerThousandChars: cost,
  maxChars: LONG_TEXT_LIMIT,
  voices: GEMINI_VOICES.map(([name, style]) => ({ id: name, name: `${name} (${style})` })),
  defaultSettings: { voice: 'Kore', speed: 1 },
  supportsSpeed: false,
});

const openAiTts = (id: string, displayName: string, description: string, tier: SpeechTier, cost: string): SpeechModel => ({
  id,
  displayName,
  description,
  provider: 'openai',
  tier,
  costPerThousandChars: cost,
  maxChars: OPENAI_TEXT_LIMIT,
  voices: named(OPENAI_VOICE_IDS),
  defaultSettings: { voice: 'alloy', speed: 1 },
  supportsSpeed: true,
  speed: { min: 0.25, max: 4, step: 0.25, default: 1 },
});

/** The catalogue, in the order the view lists it. */
export const SPEECH_MODELS: readonly SpeechModel[] = [
  openAiTts('tts-1', 'OpenAI TTS', 'OpenAI text-to-speech, optimised for speed.', 'standard', '0.015'),
  openAiTts('tts-1-hd', 'OpenAI TTS HD', 'OpenAI text-to-speech, optimised for quality.', 'premium', '0.03'),
  {
    id: 'gpt-4o-mini-tts',
    displayName: 'GPT-4o mini TTS',
    description: 'OpenAI GPT-4o mini text-to-speech; takes free-text voice instructions.',
    provider: 'openai',
    tier: 'basic',
    costPerThousandChars: '0.0006',
    maxChars: OPENAI_TEXT_LIMIT,
    voices: named(MINI_TTS_VOICE_IDS),
    defaultSettings: { voice: 'alloy', speed: 1 },
    supportsSpeed: false,
    additionalParams: {
      instructions: { label: 'Voice instructions', type: 'text', default: '', description: 'How the voice should sound, in your own words (tone, pace, accent).' },
    },
  },
  geminiModel('gemini-2.5-flash-preview-tts', 'Gemini 2.5 Flash TTS (preview)', 'basic', '0.0301'),
  geminiModel('gemini-2.5-pro-preview-tts', 'Gemini 2.5 Pro TTS (preview)', 'premium', '0.0601'),
  {
    id: 'Kokoro-82m',
    displayName: 'Kokoro 82M',
    description: 'Kokoro, an open-weight 82M-parameter text-to-speech model.',
    provider: 'replicate',
    tier: 'standard',
    costPerThousandChars: '0.001',
    maxChars: LONG_TEXT_LIMIT,
    voices: KOKORO_VOICE_READING === '46' ? KOKORO_VOICES_46 : KOKORO_VOICES_25,
    ...(KOKORO_VOICE_READING === '46' ? { voiceCategories: KOKORO_CATEGORIES.flatMap((c) => [`${c} Female`, `${c} Male`]).filter((c) => KOKORO_VOICES_46.some((v) => v.category === c)) } : {}),
    defaultSettings: { voice: 'af_bella', speed: 1 },
    supportsSpeed: true,
    speed: { min: 0.5, max: 2, step: 0.1, default: 1 },
  },
  {
    id: 'Elevenlabs-Turbo-V2.5',
    displayName: 'ElevenLabs Turbo v2.5',
    description: 'ElevenLabs Turbo v2.5: low-latency, natural voices.',
    provider: 'elevenlabs',
    tier: 'standard',
    costPerThousandChars: '0.06',
    maxChars: LONG_TEXT_LIMIT,
    voices: ELEVENLABS_VOICES.map(([name, providerVoiceId, gender]) => ({ id: name, name, gender, providerVoiceId })),
    defaultSettings: { voice: 'Rachel', speed: 1 },
    supportsSpeed: true,
    speed: { min: 0.7, max: 1.2, step: 0.1, default: 1 },
    additionalParams: {
      stability: slider('Stability', ELEVENLABS_DEFAULTS.stability, 'Lower is more expressive, higher is steadier.'),
      similarity_boost: slider('Similarity boost', ELEVENLABS_DEFAULTS.similarity_boost, 'How closely the voice keeps to the original speaker.'),
      style: slider('Style', ELEVENLABS_DEFAULTS.style, 'Exaggerates the speaker\'s style; 0 is neutral.'),
    },
  },
  {
    id: OFFLINE_VOICE_MODEL_ID,
    displayName: 'Parley Offline Voice (built-in, not an AI model)',
    description: 'Built into Parley. Not an AI model: eSpeak NG, a formant synthesizer run by the gateway. Robotic but clear; works with no key and no network, free.',
    provider: 'offline',
    tier: 'offline',
    costPerThousandChars: '0',
    maxChars: LONG_TEXT_LIMIT,
    voices: OFFLINE_VOICES,
    defaultSettings: { voice: 'en-us', speed: 1 },
    supportsSpeed: true,
    speed: { min: 0.5, max: 2, step: 0.1, default: 1 },
    offline: true,
  },
];

const BY_ID = new Map(SPEECH_MODELS.map((m) => [m.id, m]));

export function speechModel(id: string): SpeechModel | undefined {
  return BY_ID.get(id);
}

/** A voice of the model, or null (an unknown voice is refused, never silently replaced). */
export function speechVoice(model: SpeechModel, voice: string): SpeechVoice | null {
  return model.voices.find((v) => v.id === voice) ?? null;
}

/** The speed a request uses: the model's default when it has no speed; clamped to its range and step otherwise. */
export function speechSpeed(model: SpeechModel, speed: number | undefined): number {
  if (!model.supportsSpeed || !model.speed) return 1;
  const s = model.speed;
  const v = speed === undefined || !Number.isFinite(speed) ? s.default : Math.min(s.max, Math.max(s.min, speed));
  return Number((Math.round(v / s.step) * s.step).toFixed(4));
}

/**
 * Price of a text in micro-dollars, rounded up: characters x cost per 1000 (spec 001 section 9). Integer arithmetic:
 * the decimal price is read into pico-dollars per 1000 characters (0.0006 = 600,000,000), so no float rounds it.
 */
export function speechCostMicro(model: Pick<SpeechModel, 'costPerThousandChars'>, chars: number): bigint {
  const [whole = '0', frac = ''] = model.costPerThousandChars.split('.');
  const picoPerThousand = BigInt(whole) * 1_000_000_000_000n + BigInt((frac + '000000000000').slice(0, 12));
  // micro = chars * pico / 1000 / 1e6, rounded up.
  const num = BigInt(chars) * picoPerThousand;
  const den = 1_000_000_000n;
  return (num + den - 1n) / den;
}

/** Characters as the spec counts them: code points, so a multibyte text is not charged per UTF-16 unit. */
export function speechChars(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}
