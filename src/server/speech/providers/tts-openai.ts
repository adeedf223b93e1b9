/**
 * The OpenAI speech API (POST {base}/audio/speech), which Kokoro-FastAPI and LocalAI also serve: JSON in, audio
 * bytes out (mp3 by default, spec 001 section 3). The answer must be audio: a provider that answers 200 with HTML
 * or JSON is refused (docs/speech.md).
 */
import { DEFAULT_AUDIO_FORMAT } from '../../../protocol/speech-catalogue';
import { httpFailure, isAudioType, MAX_SPEECH_BYTES, networkFailure, readBounded, type SpeechJob, type SpeechProvider, type SpeechResult } from './types';

export class OpenAiSpeechProvider implements SpeechProvider {
  constructor(
    readonly id: string,
    private readonly baseUrl: string,
    private readonly apiKey: string | null,
  ) {}

  async synthesize(job: SpeechJob, signal: AbortSignal): Promise<SpeechResult> {
    const body: Record<string, unknown> = { model: job.model, input: job.text, voice: job.voice, response_format: DEFAULT_AUDIO_FORMAT };
    if (job.speed !== null) body.speed = job.speed;
    if (job.instructions) body.instructions = job.instructions;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'audio/*' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}/audio/speech`, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (e) {
      return networkFailure(e, `Speech provider ${this.id}`, signal);
    }
    if (!res.ok) return httpFailure(res, `Speech provider ${this.id}`);
    return audioAnswer(res, this.id);
  }
}

/** The audio of a 200 answer, or the failure of one that is not audio or too large. */
export async function audioAnswer(res: Response, id: string): Promise<SpeechResult> {
  const type = res.headers.get('content-type');
  if (!isAudioType(type)) {
    await res.body?.cancel().catch(() => undefined);
    return { ok: false, status: 502, code: 'PROVIDER_BAD_AUDIO', message: `Speech provider ${id} answered ${type ?? 'no content type'} instead of audio`, transient: false };
  }
  const audio = await readBounded(res, MAX_SPEECH_BYTES).catch(() => null);
  if (audio === null) return { ok: false, status: 502, code: 'PROVIDER_BAD_AUDIO', message: `Speech provider ${id} sent more than ${MAX_SPEECH_BYTES} bytes of audio, or the audio was cut off`, transient: false };
  if (audio.byteLength === 0) return { ok: false, status: 502, code: 'PROVIDER_BAD_AUDIO', message: `Speech provider ${id} sent no audio`, transient: true };
  return { ok: true, audio, mime: (type ?? 'audio/mpeg').split(';')[0]?.trim() ?? 'audio/mpeg' };
}
