/**
 * The ElevenLabs text-to-speech API (POST {base}/v1/text-to-speech/{voice_id}, key in `xi-api-key`): the voice is
 * the catalogue voice's ElevenLabs id, the sliders go in voice_settings (spec 001 section 5: stability,
 * similarity_boost, style, 0 to 1), the speed too (0.7 to 1.2).
 */
import { httpFailure, networkFailure, type SpeechJob, type SpeechProvider, type SpeechResult } from './types';
import { audioAnswer } from './tts-openai';

export class ElevenLabsSpeechProvider implements SpeechProvider {
  constructor(
    readonly id: string,
    private readonly baseUrl: string,
    private readonly apiKey: string | null,
  ) {}

  async synthesize(job: SpeechJob, signal: AbortSignal): Promise<SpeechResult> {
    const settings: Record<string, number> = { ...job.voiceSettings };
    if (job.speed !== null) settings.speed = job.speed;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'audio/mpeg' };
    if (this.apiKey) headers['xi-api-key'] = this.apiKey;
    const url = `${this.baseUrl}/v1/text-to-speech/${encodeURIComponent(job.voice)}?output_format=mp3_44100_128`;
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ text: job.text, model_id: job.model, voice_settings: settings }), signal });
    } catch (e) {
      return networkFailure(e, `Speech provider ${this.id}`, signal);
    }
    if (!res.ok) return httpFailure(res, `Speech provider ${this.id}`);
    return audioAnswer(res, this.id);
  }
}
