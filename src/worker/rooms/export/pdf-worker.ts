/// <reference lib="webworker" />
/**
 * A dedicated worker of its own for one PDF build, started by the engine worker and ended when the file is made.
 * A long conversation takes seconds to lay out; here that time is spent beside the engine, which keeps running
 * replies and live queries meanwhile. The faces come from the app's own origin (./fonts.ts). The engine times each
 * message's parse through `onParse` and ends this worker when one runs past its budget (./pdf-budget.ts).
 */
import * as Comlink from 'comlink';
import { loadPdfFonts } from './fonts';
import type { ExportSource } from './model';
import { sourceNeedsCjk, toPdf } from './pdf';

export interface PdfWorkerApi {
  /** `plain`: indexes of messages laid out as plain text, unparsed. `onParse(i)`: message i's parse starts (-1: all done). */
  build(source: ExportSource, plain: number[], onParse: (index: number) => void): Promise<ArrayBuffer>;
}

const api: PdfWorkerApi = {
  async build(source, plain, onParse) {
    const bytes = toPdf(source, await loadPdfFonts({ cjk: sourceNeedsCjk(source) }), { plain: new Set(plain), onParse: (i) => void onParse(i) });
    return Comlink.transfer(bytes, [bytes]);
  },
};

Comlink.expose(api);
