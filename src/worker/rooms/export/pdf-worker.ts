/// <reference lib="webworker" />
/**
 * A dedicated worker of its own for one PDF build, started by the engine worker and ended when the file is made.
 * A long conversation takes seconds to lay out; here that time is spent beside the engine, which keeps running
 * replies and live queries meanwhile. The faces come from the app's own origin (./fonts.ts).
 */
import * as Comlink from 'comlink';
import { loadPdfFonts } from './fonts';
import type { ExportSource } from './model';
import { sourceNeedsCjk, toPdf } from './pdf';

export interface PdfWorkerApi {
  build(source: ExportSource): Promise<ArrayBuffer>;
}

const api: PdfWorkerApi = {
  async build(source) {
    const bytes = toPdf(source, await loadPdfFonts({ cjk: sourceNeedsCjk(source) }));
    return Comlink.transfer(bytes, [bytes]);
  },
};

Comlink.expose(api);
