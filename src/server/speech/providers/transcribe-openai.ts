/**
 * The OpenAI transcription API (POST {base}/audio/transcriptions, multipart), which whisper.cpp's server and LocalAI
 * also serve. verbose_json is asked for its `duration` (what the call costs); a server that answers plain json or
 * text is read too.
 */
import { networkFailure, providerErrorText, readBounded, type TranscriptionJob, type TranscriptionProvider, type TranscriptionResult } from './types';

export class OpenAiTranscriptionProvider implements TranscriptionProvider {
  constructor(
    readonly id: string,
    private readonly url: string,
    private readonly apiKey: string | null,
  ) {}

  async transcribe(job: TranscriptionJob, signal: AbortSignal): Promise<TranscriptionResult> {
    const form = new FormData();
    form.append('file', new Blob([job.audio as Uint8Array<ArrayBuffer>], { type: job.mime }), job.filename);
    form.append('model', job.model);
    form.append('response_format', 'verbose_json');
    if (job.language) form.append('language', job.language);
    const headers: Record<string, string> = {};
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let res: Response;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: form, signal });
    } catch (e) {
      const f = networkFailure(e, `Transcription provider ${this.id}`, signal);
      return { ok: false, status: f.status, code: f.code, message: f.message };
    }
    if (!res.ok) return { ok: false, status: res.status === 429 || res.status >= 500 ? 502 : 400, code: 'PROVIDER_REFUSED', message: `Transcription provider ${this.id}: ${await providerErrorText(res)}` };
    const raw = await readBounded(res, 4 * 1024 * 1024).catch(() => null);
    if (raw === null) return { ok: false, status: 502, code: 'PROVIDER_BAD_ANSWER', message: `Transcription provider ${this.id} sent an answer too large to be a transcript` };
    const text = new TextDecoder().decode(raw);
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('json')) return { ok: true, text: text.trim(), duration: null };
    try {
      const j = JSON.parse(text) as { text?: unknown; duration?: unknown };
      if (typeof j.text !== 'string') throw new Error('no text');
      return { ok: true, text: j.text.trim(), duration: typeof j.duration === 'number' && Number.isFinite(j.duration) && j.duration >= 0 ? j.duration : null };
    } catch {
      return { ok: false, status: 502, code: 'PROVIDER_BAD_ANSWER', message: `Transcription provider ${this.id} answered JSON without a text field` };
    }
  }
}
