/**
 * Listening for voice mode: one utterance from the microphone, as text. Two ways, in this order:
 *  - the gateway's transcription API (GET /api/transcribe/config says it is there): MediaRecorder records until the
 *    speaker stops (1.2 s of silence after speech, measured with an AnalyserNode), 30 s at most, or "Done speaking";
 *    the recording goes to the engine, which posts it to POST /api/transcribe;
 *  - the browser's own speech recognition (SpeechRecognition / webkitSpeechRecognition), where present.
 * With neither, voice mode says plainly why it cannot listen.
 */
import type { TranscribeConfig } from '../../protocol/speech';
import { engine } from '../engine';
import { MicrophoneError, microphoneProblem } from './microphone';

export { MICROPHONE_ADVICE, MicrophoneError, type MicrophoneProblem } from './microphone';

export const CANNOT_LISTEN = 'Voice mode cannot listen: no transcription service is configured on this server and this browser has no speech recognition.';
const SILENCE_MS = 1200;
const MAX_MS = 30_000;
const SPEECH_RMS = 0.02;

export type Listener = 'gateway' | 'browser' | null;

async function openMicrophone(): Promise<MediaStream> {
  try {
    return await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (e) {
    const problem = microphoneProblem(e);
    throw problem ? new MicrophoneError(problem, e instanceof Error ? e.name : String(e)) : e;
  }
}

interface RecognitionLike {
  lang: string;
  interimResults: boolean;
  continuous: boolean;
  start(): void;
  stop(): void;
  abort(): void;
  onresult: ((e: { results: ArrayLike<ArrayLike<{ transcript: string }> & { isFinal: boolean }> }) => void) | null;
  onerror: ((e: { error: string }) => void) | null;
  onend: (() => void) | null;
}

function recognitionClass(): (new () => RecognitionLike) | null {
  const w = globalThis as unknown as { SpeechRecognition?: new () => RecognitionLike; webkitSpeechRecognition?: new () => RecognitionLike };
  return w.SpeechRecognition ?? w.webkitSpeechRecognition ?? null;
}

/** Which way voice mode can listen here. */
export async function pickListener(): Promise<Listener> {
  const config = await engine<TranscribeConfig>((api) => api.transcriptionConfig()).catch(() => null);
  if (config?.available && typeof MediaRecorder !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function') return 'gateway';
  if (recognitionClass()) return 'browser';
  return null;
}

/** One utterance being heard: `done()` ends it early ("Done speaking"), `cancel()` drops it. */
export interface Utterance {
  text: Promise<string>;
  done(): void;
  cancel(): void;
}

export function listen(way: 'gateway' | 'browser', lang = navigator.language || 'en-US'): Utterance {
  return way === 'gateway' ? record(lang) : recognize(lang);
}

function record(lang: string): Utterance {
  // "Done speaking" pressed while the microphone is still opening is kept, not lost: the recording ends once started.
  let stop: () => void = () => (doneEarly = true);
  let doneEarly = false;
  let cancelled = false;
  const text = (async () => {
    const stream = await openMicrophone();
    const recorder = new MediaRecorder(stream);
    const parts: Blob[] = [];
    recorder.ondataavailable = (e) => {
      if (e.data.size > 0) parts.push(e.data);
    };
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    ctx.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const stopped = new Promise<void>((resolve) => (recorder.onstop = () => resolve()));
    stop = () => {
      if (recorder.state === 'recording') recorder.stop();
    };
    recorder.start(250);
    if (doneEarly || cancelled) stop();
    const started = performance.now();
    let heard = false;
    let quietSince = performance.now();
    const timer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const s of samples) sum += s * s;
      const loud = Math.sqrt(sum / samples.length) > SPEECH_RMS;
      const now = performance.now();
      if (loud) {
        heard = true;
        quietSince = now;
      }
      if ((heard && now - quietSince > SILENCE_MS) || now - started > MAX_MS) stop();
    }, 100);
    await stopped;
    clearInterval(timer);
    for (const t of stream.getTracks()) t.stop();
    void ctx.close();
    if (cancelled) return '';
    const blob = new Blob(parts, { type: (recorder.mimeType || 'audio/webm').split(';')[0] });
    if (blob.size === 0) return '';
    const r = await engine<{ ok: true; text: string } | { ok: false; error: string }>((api) => api.transcribe(blob, lang.split('-')[0]));
    if (!r.ok) throw new Error(r.error);
    return r.text;
  })();
  return {
    text,
    done: () => stop(),
    cancel: () => {
      cancelled = true;
      stop();
    },
  };
}

function recognize(lang: string): Utterance {
  const Recognition = recognitionClass();
  if (!Recognition) return { text: Promise.reject(new Error(CANNOT_LISTEN)), done: () => undefined, cancel: () => undefined };
  const r = new Recognition();
  r.lang = lang;
  r.interimResults = false;
  r.continuous = false;
  let finalText = '';
  const text = new Promise<string>((resolve, reject) => {
    r.onresult = (e) => {
      for (let i = 0; i < e.results.length; i++) {
        const res = e.results[i];
        if (res?.isFinal) finalText += res[0]?.transcript ?? '';
      }
    };
    r.onerror = (e) => {
      if (e.error === 'no-speech' || e.error === 'aborted') return resolve('');
      const problem = microphoneProblem(e.error);
      reject(problem ? new MicrophoneError(problem, e.error) : new Error(`Speech recognition failed: ${e.error}`));
    };
    r.onend = () => resolve(finalText.trim());
  });
  r.start();
  return { text, done: () => r.stop(), cancel: () => r.abort() };
}
