/**
 * Page of the image compression bench: a 12-megapixel JPEG made on a canvas, then compressed by the app's code
 * (prepareImage) either in the app's file worker or here on the main thread, while a PerformanceObserver records
 * the main thread's long tasks. Also a PDF read as an attach reads it, for ../first-pdf-browser.bench.ts.
 */
import * as Comlink from 'comlink';
import { prepareImage } from '../../../src/worker/rooms/library/attachments/image';
import type { FileWorkerApi } from '../../../src/worker/rooms/library/attachments/file-worker';

export interface RunResult {
  ms: number;
  finalSize: number;
  mimeType: string;
  longTasks: number[];
}

async function makePhoto(width: number, height: number): Promise<File> {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
  const img = ctx.createImageData(width, height);
  let seed = 11;
  for (let i = 0; i < img.data.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const p = i / 4;
    img.data[i] = ((p % width) >> 4) + ((seed >> 8) & 63);
    img.data[i + 1] = (((p / width) | 0) >> 4) + ((seed >> 14) & 63);
    img.data[i + 2] = 128 + ((seed >> 20) & 63);
    img.data[i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return new File([await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.95 })], 'photo.jpg', { type: 'image/jpeg' });
}

let photo: File | null = null;
const longTasks: number[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) longTasks.push(e.duration);
}).observe({ type: 'longtask', buffered: false });

async function run(where: 'worker' | 'main'): Promise<RunResult> {
  const file = photo as File;
  longTasks.length = 0;
  const started = performance.now();
  let result;
  if (where === 'main') {
    result = await prepareImage(file, file.name);
  } else {
    const worker = new Worker(new URL('../../../src/worker/rooms/library/attachments/file-worker.ts', import.meta.url), { type: 'module' });
    const api = Comlink.wrap<FileWorkerApi>(worker);
    result = await api.prepareImage(file, file.name, true, Comlink.proxy(() => undefined));
    worker.terminate();
  }
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 100));
  if (!result.isValid) throw new Error(result.error);
  return { ms, finalSize: result.file.finalSize, mimeType: result.file.mimeType, longTasks: [...longTasks] };
}

/**
 * A PDF attached as the app reads it (../first-pdf-browser.bench.ts): a file worker of its own, started for the
 * file (src/worker/rooms/library/file-jobs.ts), reads it with pdf.js and is ended. Answers ms from the start of
 * the worker to the text, and the text's length.
 */
async function readPdf(bytes: number[]): Promise<{ ms: number; chars: number }> {
  const file = new Blob([new Uint8Array(bytes)], { type: 'application/pdf' });
  const started = performance.now();
  const worker = new Worker(new URL('../../../src/worker/rooms/library/attachments/file-worker.ts', import.meta.url), { type: 'module' });
  try {
    const api = Comlink.wrap<FileWorkerApi>(worker);
    const out = await api.readPdf(file, Comlink.proxy(() => undefined));
    return { ms: performance.now() - started, chars: out.text.length };
  } finally {
    worker.terminate();
  }
}

declare global {
  interface Window {
    parleyCompress?: { prepare(): Promise<number>; run(where: 'worker' | 'main'): Promise<RunResult> };
    parleyReadPdf?: (bytes: number[]) => Promise<{ ms: number; chars: number }>;
  }
}

window.parleyReadPdf = readPdf;

window.parleyCompress = {
  async prepare() {
    photo = await makePhoto(4000, 3000);
    return photo.size;
  },
  run,
};
