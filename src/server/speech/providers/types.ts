/**
 * The speech provider interfaces of the gateway (DESIGN "providers/ one interface per modality"): a speech provider
 * turns one chunk of text into audio; a transcription provider turns a recording into text. The gateway selects a
 * provider from the speech catalogue by model id (src/server/speech/catalogue.ts).
 */

export interface SpeechJob {
  /** The provider's own model id. */
  model: string;
  text: string;
  /** The provider's own voice id. */
  voice: string;
  /** 1 = normal; only sent to models that take a speed. */
  speed: number | null;
  /** ElevenLabs' sliders (0 to 1). */
  voiceSettings?: { stability: number; similarity_boost: number; style: number };
  /** gpt-4o-mini-tts's voice instructions. */
  instructions?: string;
}

export type SpeechResult =
  | { ok: true; audio: Uint8Array; mime: string }
  /**
   * The provider refused or failed. `transient`: worth another try later (network, 5xx, 429); otherwise the request
   * itself is wrong for the provider and trying again will not help.
   */
  | { ok: false; status: number; code: string; message: string; transient: boolean };

export interface SpeechProvider {
  readonly id: string;
  synthesize(job: SpeechJob, signal: AbortSignal): Promise<SpeechResult>;
}

export interface TranscriptionJob {
  model: string;
  audio: Uint8Array;
  mime: string;
  filename: string;
  language?: string;
}

export type TranscriptionResult =
  | { ok: true; text: string; duration: number | null }
  | { ok: false; status: number; code: string; message: string };

export interface TranscriptionProvider {
  readonly id: string;
  transcribe(job: TranscriptionJob, signal: AbortSignal): Promise<TranscriptionResult>;
}

/** Largest audio answer a provider may send for one chunk (about 3900 characters: minutes of speech). */
export const MAX_SPEECH_BYTES = 32 * 1024 * 1024;

/** Audio types an answer may carry; anything else (an HTML error page, JSON with 200) is refused. */
export function isAudioType(contentType: string | null): boolean {
  if (!contentType) return false;
  const t = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return t.startsWith('audio/') || t === 'application/ogg';
}

/** Reads a response body up to `max` bytes; null when it is larger (the rest is not read). */
export async function readBounded(res: Response, max: number): Promise<Uint8Array | null> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** A provider's error body as one line (its JSON error message when it has one), at most 300 characters. */
export async function providerErrorText(res: Response): Promise<string> {
  const raw = await readBounded(res, 64 * 1024).catch(() => null);
  const text = raw ? new TextDecoder().decode(raw) : '';
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const m = typeof j.error === 'string' ? j.error : typeof j.error?.message === 'string' ? j.error.message : typeof j.message === 'string' ? j.message : typeof j.detail === 'string' ? j.detail : JSON.stringify(j.detail ?? '');
    if (m) return m.slice(0, 300);
  } catch {
    // not JSON
  }
  return (text.trim() || `HTTP ${res.status}`).slice(0, 300);
}

/** The failure of an HTTP answer that is not audio: transient for 429 and 5xx. */
export async function httpFailure(res: Response, what: string): Promise<Extract<SpeechResult, { ok: false }>> {
  const message = await providerErrorText(res);
  const transient = res.status === 429 || res.status >= 500;
  return { ok: false, status: res.status, code: transient ? 'PROVIDER_UNAVAILABLE' : 'PROVIDER_REFUSED', message: `${what}: ${message}`, transient };
}

/** A network failure (no answer): transient, unless the request was aborted by us. */
export function networkFailure(e: unknown, what: string, signal: AbortSignal): Extract<SpeechResult, { ok: false }> {
  const reason = e instanceof Error ? e.message : String(e);
  if (signal.aborted) return { ok: false, status: 504, code: 'PROVIDER_TIMEOUT', message: `${what} did not answer in time`, transient: true };
  return { ok: false, status: 502, code: 'PROVIDER_UNREACHABLE', message: `${what} could not be reached: ${reason}`, transient: true };
}
