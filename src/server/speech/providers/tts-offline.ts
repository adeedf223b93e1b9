/**
 * The built-in offline voice (docs/decisions.md, "Offline voice"): eSpeak NG in WebAssembly, run by the gateway in
 * one worker thread, so its CPU-bound synthesis never blocks the event loop. Jobs queue in the thread one at a time.
 * It runs in the gateway rather than the browser because its data is 24 MB (every language): a browser would
 * download it before its first word, while the gateway loads it once from the package, and the engine then treats
 * it like any provider (the same chunks, cache, holds and 202 path).
 */
import { Worker } from 'node:worker_threads';
import type { SpeechJob, SpeechProvider, SpeechResult } from './types';

export const OFFLINE_SPEECH_PROVIDER_ID = 'offline';

interface Pending {
  resolve(r: SpeechResult): void;
}

export class OfflineSpeechProvider implements SpeechProvider {
  readonly id = OFFLINE_SPEECH_PROVIDER_ID;
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  private start(): Promise<Worker> {
    this.ready ??= new Promise<Worker>((resolve, reject) => {
      const w = new Worker(new URL('./tts-offline-worker.mjs', import.meta.url));
      w.unref();
      w.on('message', (msg: { ready?: true; id?: number; wav?: Uint8Array; error?: string }) => {
        if (msg.ready) {
          this.worker = w;
          resolve(w);
          return;
        }
        const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
        if (!p || msg.id === undefined) return;
        this.pending.delete(msg.id);
        if (msg.wav) p.resolve({ ok: true, audio: msg.wav, mime: 'audio/wav' });
        else p.resolve({ ok: false, status: 500, code: 'OFFLINE_VOICE_FAILED', message: `The offline voice failed: ${msg.error ?? 'unknown error'}`, transient: false });
      });
      w.on('error', (e) => this.fail(w, e, reject));
      w.on('exit', (code) => this.fail(w, new Error(`exited with code ${code}`), reject));
    });
    return this.ready;
  }

  /** The thread died: every job in it fails (transient: a new thread is started by the next call). */
  private fail(w: Worker, e: Error, reject: (e: Error) => void): void {
    if (this.worker !== null && this.worker !== w) return;
    this.worker = null;
    this.ready = null;
    reject(e);
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.resolve({ ok: false, status: 503, code: 'OFFLINE_VOICE_FAILED', message: `The offline voice stopped: ${e.message}`, transient: true });
    }
  }

  /** Starts the thread and loads eSpeak's data ahead of the first request (a gateway does it at startup). */
  async warm(): Promise<void> {
    const r = await this.synthesize({ model: 'warm', text: '.', voice: 'en-us', speed: 1 }, AbortSignal.timeout(60_000));
    if (!r.ok) throw new Error(r.message);
  }

  async synthesize(job: SpeechJob, signal: AbortSignal): Promise<SpeechResult> {
    let w: Worker;
    try {
      w = await this.start();
    } catch (e) {
      return { ok: false, status: 503, code: 'OFFLINE_VOICE_FAILED', message: `The offline voice could not start: ${e instanceof Error ? e.message : String(e)}`, transient: true };
    }
    const id = this.nextId++;
    return new Promise<SpeechResult>((resolve) => {
      const onAbort = (): void => {
        // The thread finishes the job (eSpeak cannot be interrupted); its answer is then dropped.
        this.pending.delete(id);
        resolve({ ok: false, status: 504, code: 'PROVIDER_TIMEOUT', message: 'The offline voice did not finish in time', transient: true });
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
      });
      w.postMessage({ id, job: { text: job.text, voice: job.voice, speed: job.speed ?? 1 } });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    if (w) await w.terminate();
  }
}
