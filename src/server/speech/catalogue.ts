/**
 * The speech models this gateway offers: each model of the spec's catalogue that a configured provider serves
 * (./config.ts), and the built-in offline voice, always (labelled as not a model, like Parley Offline). The main
 * catalogue (src/server/chat/catalogue.ts) lists their ModelInfo after the other models (modality 'audio');
 * the speech routes resolve here.
 */
import type { ModelInfo } from '../../protocol/api';
import { OFFLINE_VOICE_MODEL_ID, SPEECH_MODELS, speechModel, type SpeechModel } from '../../protocol/speech-catalogue';
import { ElevenLabsSpeechProvider } from './providers/tts-elevenlabs';
import { OfflineSpeechProvider } from './providers/tts-offline';
import { OpenAiSpeechProvider } from './providers/tts-openai';
import { OpenAiTranscriptionProvider } from './providers/transcribe-openai';
import type { SpeechProvider, TranscriptionProvider } from './providers/types';
import type { SpeechConfig, TranscribeProviderConfig } from './config';

export interface SpeechEntry {
  model: SpeechModel;
  provider: SpeechProvider;
  /** The provider's own model id. */
  upstreamModel: string;
  /** USD per 1000 characters (the catalogue's, or the provider's override). */
  costPerThousandChars: string;
  providerName: string;
}

export class SpeechCatalogue {
  private readonly entries = new Map<string, SpeechEntry>();
  readonly offline = new OfflineSpeechProvider();
  readonly transcriber: { provider: TranscriptionProvider; config: TranscribeProviderConfig } | null;

  constructor(config: SpeechConfig, extra: { provider: SpeechProvider; models: string[] }[] = []) {
    for (const p of config.providers) {
      const provider = p.kind === 'elevenlabs' ? new ElevenLabsSpeechProvider(p.name, p.url, p.key) : new OpenAiSpeechProvider(p.name, p.url, p.key);
      for (const [id, upstream] of p.models) {
        const model = speechModel(id);
        if (!model || this.entries.has(id)) continue;
        this.entries.set(id, { model, provider, upstreamModel: upstream, costPerThousandChars: p.pricing.get(id) ?? model.costPerThousandChars, providerName: p.name });
      }
    }
    // Tests add providers by hand (a fake that fails on cue).
    for (const e of extra) {
      for (const id of e.models) {
        const model = speechModel(id);
        if (model && !this.entries.has(id)) this.entries.set(id, { model, provider: e.provider, upstreamModel: id, costPerThousandChars: model.costPerThousandChars, providerName: e.provider.id });
      }
    }
    const offline = speechModel(OFFLINE_VOICE_MODEL_ID) as SpeechModel;
    this.entries.set(offline.id, { model: offline, provider: this.offline, upstreamModel: offline.id, costPerThousandChars: '0', providerName: 'offline' });
    const t = config.transcribe;
    this.transcriber = t ? { provider: new OpenAiTranscriptionProvider(t.name, t.url, t.key), config: t } : null;
  }

  get(id: string): SpeechEntry | undefined {
    return this.entries.get(id);
  }

  /** The models offered, in the spec's catalogue order (the offline voice last). */
  list(): ModelInfo[] {
    return SPEECH_MODELS.filter((m) => this.entries.has(m.id)).map((m) => {
      const e = this.entries.get(m.id) as SpeechEntry;
      const free = Number(e.costPerThousandChars) === 0;
      return {
        id: m.id,
        name: m.displayName,
        modality: 'audio',
        provider: m.offline ? 'offline' : e.providerName,
        pricing: { input: '0', output: '0' },
        capabilities: ['text-to-speech', ...(m.supportsSpeed ? ['speed'] : [])],
        free,
        offline: m.offline === true,
        description: free || m.offline ? m.description : `${m.description} $${e.costPerThousandChars} per 1000 characters.`,
      } satisfies ModelInfo;
    });
  }

  close(): Promise<void> {
    return this.offline.close();
  }
}
