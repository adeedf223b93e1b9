/// <reference lib="webworker" />
/**
 * A dedicated worker of its own for reading one file, started by the engine worker (../file-jobs.ts) and ended
 * when the file is read: compressing a 12-megapixel photo or reading a long PDF takes seconds, spent here beside
 * the engine, which keeps streaming replies and serving queries meanwhile. pdf.js starts its own worker from
 * the app's origin (its file is part of the build).
 */
import * as Comlink from 'comlink';
import { getDocument, GlobalWorkerOptions } from 'pdfjs-dist';
import pdfWorkerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { prepareImage, type ImageValidation } from './image';
import { imageThumbnail } from '../../../infra/files';
import { readDocx, readPdf, readTextFile, type DocumentText, type PdfJs, type ReadProgress } from './documents';

GlobalWorkerOptions.workerSrc = pdfWorkerUrl;

export interface FileWorkerApi {
  prepareImage(file: Blob, name: string, compressionEnabled: boolean, onCompressing: () => void): Promise<ImageValidation>;
  /** A small WebP of a prepared image for the composer, the message and the library (null: the image is its own). */
  thumbnail(file: Blob): Promise<Blob | null>;
  readPdf(file: Blob, onProgress: (p: ReadProgress) => void): Promise<DocumentText>;
  readDocx(file: Blob): Promise<DocumentText>;
  readText(file: Blob): Promise<DocumentText>;
}

const api: FileWorkerApi = {
  prepareImage: (file, name, compressionEnabled, onCompressing) => prepareImage(file, name, { compressionEnabled, onCompressing: () => void onCompressing() }),
  thumbnail: (file) => imageThumbnail(file).catch(() => null),
  async readPdf(file, onProgress) {
    return readPdf({ getDocument } as unknown as PdfJs, new Uint8Array(await file.arrayBuffer()), { onProgress: (p) => void onProgress(p) });
  },
  async readDocx(file) {
    return readDocx(await file.arrayBuffer());
  },
  async readText(file) {
    return readTextFile(new Uint8Array(await file.arrayBuffer()));
  },
};

Comlink.expose(api);
