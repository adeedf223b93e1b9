/**
 * Export (spec 000 sections 1 and 5): a conversation's active branch as Markdown, JSON or PDF, or every
 * conversation as one zip. Reads only; appends nothing. The messages come from the same live query the
 * conversation page renders (so the export is the path the user sees), and the pure formatters in
 * rooms/export/ turn them into bytes. The PDF is built in a dedicated worker the engine starts for it, off
 * the page's thread and beside the engine; jspdf and the fonts load only there. Bytes go to the tab as a
 * transferred ArrayBuffer.
 */
import * as Comlink from 'comlink';
import { firstValueFrom } from 'rxjs';
import type { ExportFile, ExportFormat, ExportHandlers } from '../../../protocol/engine';
import type { EngineCore } from '../../core';
import { withExportImages } from '../../infra/files';
import { conversationQueries } from '../conversations/queries';
import { EXPORT_NOTICE } from '../../../shared/messages';
import { archiveFileName, toArchive } from './archive';
import { toJson } from './json';
import { toMarkdown } from './markdown';
import { checkExportable, EXPORT_MIME, exportFileName, type ExportSource } from './model';
import type { PdfFonts } from './pdf';
import type { PdfWorkerApi } from './pdf-worker';
import { pdfWithinBudget } from './pdf-budget';

export interface ExportOptions {
  /** Where the PDF faces come from (the app's own assets in the browser; tests pass files). `cjk`: the CJK face too. */
  loadFonts?: (options: { cjk: boolean }) => Promise<PdfFonts>;
  /** Clock of the export time written into the files. */
  now?: () => number;
}

function file(fileName: string, mimeType: string, bytes: Uint8Array | ArrayBuffer): ExportFile {
  const buffer = bytes instanceof ArrayBuffer ? bytes : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const result: ExportFile = { ok: true, fileName, mimeType, bytes: buffer as ArrayBuffer };
  // Moved to the tab, not copied (a PDF can be megabytes).
  return Comlink.transfer(result, [result.bytes]);
}

export function exportCommands(core: EngineCore, options: ExportOptions = {}): ExportHandlers {
  const queries = conversationQueries(core);
  const now = options.now ?? Date.now;

  /**
   * In a browser the PDF is laid out in a dedicated worker of its own (rooms/export/pdf-worker.ts), so the
   * engine keeps serving replies meanwhile, and a message whose parse runs past its budget is laid out as plain
   * text (rooms/export/pdf-budget.ts); where there are no workers (Node tests) or fonts are given, here.
   */
  async function pdfBytes(src: ExportSource): Promise<ArrayBuffer> {
    if (options.loadFonts || typeof Worker === 'undefined') {
      const load = options.loadFonts ?? (async (o: { cjk: boolean }) => (await import('./fonts')).loadPdfFonts(o));
      const { toPdf, sourceNeedsCjk } = await import('./pdf');
      return toPdf(src, await load({ cjk: sourceNeedsCjk(src) }));
    }
    return pdfWithinBudget(src, (source, plain, onParse) => {
      const worker = new Worker(new URL('./pdf-worker.ts', import.meta.url), { type: 'module', name: 'parley-pdf' });
      const remote = Comlink.wrap<PdfWorkerApi>(worker);
      const result = remote.build(source, [...plain], Comlink.proxy(onParse));
      const stop = () => {
        remote[Comlink.releaseProxy]();
        worker.terminate();
      };
      void result.then(stop, stop);
      return { result, stop };
    });
  }

  /** The conversation as its page shows it, checked against the spec's rule. */
  async function source(slug: string, exportedAt: number): Promise<{ ok: true; source: ExportSource } | { ok: false; error: string }> {
    const view = slug === '' ? null : await firstValueFrom(queries.conversation({ kind: 'conversation', slug }));
    if (!view) return { ok: false, error: EXPORT_NOTICE.needsNamedConversation };
    const { name, slug: s } = view.conversation;
    // Images are read from `files` as base64 (the spec's exported shape).
    return checkExportable({ conversation: { name, slug: s }, messages: await withExportImages(core.db, view.messages), exportedAt });
  }

  return {
    async exportConversation(slug: string, format: ExportFormat): Promise<ExportFile> {
      const checked = await source(slug, now());
      if (!checked.ok) return checked;
      const src = checked.source;
      const name = exportFileName(src, format);
      if (format === 'markdown') return file(name, EXPORT_MIME.markdown, new TextEncoder().encode(toMarkdown(src)));
      if (format === 'json') return file(name, EXPORT_MIME.json, new TextEncoder().encode(toJson(src)));
      try {
        return file(name, EXPORT_MIME.pdf, await pdfBytes(src));
      } catch (err) {
        return { ok: false, error: `${EXPORT_NOTICE.failedTitle}: ${err instanceof Error ? err.message : String(err)}` };
      }
    },

    async exportAllConversations(): Promise<ExportFile> {
      const exportedAt = now();
      const list = await firstValueFrom(queries.conversations({ kind: 'conversations' }));
      const sources: ExportSource[] = [];
      for (const c of list) {
        const checked = await source(c.slug, exportedAt);
        if (checked.ok) sources.push(checked.source);
      }
      if (sources.length === 0) return { ok: false, error: EXPORT_NOTICE.nothingToArchive };
      return file(archiveFileName(exportedAt), 'application/zip', toArchive(sources, exportedAt));
    },
  };
}
