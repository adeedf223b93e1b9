/**
 * The built-in offline voice's synthesis, run in its worker thread (./tts-offline-worker.mjs): eSpeak NG compiled
 * to WebAssembly (@echogarden/espeak-ng-emscripten, loaded from the package, nothing downloaded), 16-bit mono PCM at
 * 22,050 Hz, wrapped as a WAV file. Synchronous and CPU-bound, hence the thread.
 */
import EspeakInitializer from '@echogarden/espeak-ng-emscripten';

interface EspeakWorker {
  set_voice(id: string): void;
  set_rate(wpm: number): void;
  synthesize(text: string, cb: (samples: Int16Array | undefined, events: unknown[]) => void): void;
}

export const OFFLINE_SAMPLE_RATE = 22_050;
/** eSpeak's words per minute at speed 1, and its bounds. */
const BASE_WPM = 175;
const MIN_WPM = 80;
const MAX_WPM = 450;

let instance: EspeakWorker | null = null;

async function espeak(): Promise<EspeakWorker> {
  if (!instance) {
    const m = (await EspeakInitializer()) as { eSpeakNGWorker: new () => EspeakWorker };
    instance = new m.eSpeakNGWorker();
  }
  return instance;
}

export interface OfflineJob {
  text: string;
  voice: string;
  speed: number;
}

/** A WAV file (RIFF, PCM 16-bit mono) of the samples. */
export function wavFile(chunks: readonly Int16Array[], sampleRate: number): Uint8Array {
  let samples = 0;
  for (const c of chunks) samples += c.length;
  const out = new Uint8Array(44 + samples * 2);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string): void => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  v.setUint32(4, 36 + samples * 2, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  ascii(36, 'data');
  v.setUint32(40, samples * 2, true);
  let at = 44;
  for (const c of chunks) {
    for (let i = 0; i < c.length; i++, at += 2) v.setInt16(at, c[i] as number, true);
  }
  return out;
}

export async function synthesizeOffline(job: OfflineJob): Promise<Uint8Array> {
  const e = await espeak();
  e.set_voice(job.voice);
  e.set_rate(Math.round(Math.min(MAX_WPM, Math.max(MIN_WPM, BASE_WPM * job.speed))));
  const chunks: Int16Array[] = [];
  // The text goes in as plain text (eSpeak reads it without SSML): markup characters are just spoken or skipped.
  e.synthesize(job.text, (samples) => {
    if (samples && samples.length > 0) chunks.push(samples.slice());
  });
  return wavFile(chunks, OFFLINE_SAMPLE_RATE);
}
