/**
 * The PDF export's watchdog: a message whose Markdown takes longer to parse than its budget
 * (`markdownParseBudgetMs`, the view's budget) has its build worker ended, and the build starts again with that
 * message laid out as plain text, unparsed. A parse cannot be interrupted any other way; hostile Markdown is
 * mostly caught before parsing (src/protocol/markdown-guard.ts), this is for whatever the guard does not know.
 * Each restart adds one plain message, so a build ends after at most one restart per message.
 */
import { markdownParseBudgetMs } from '../../../protocol/markdown-guard';
import { messageText, type ExportSource } from './model';

/** One started build: its result, or a rejection; `stop` ends its worker. */
export interface PdfBuildRun {
  result: Promise<ArrayBuffer>;
  stop(): void;
}

/** Starts a build in a fresh worker; `onParse(i)` is called before message i is parsed, `onParse(-1)` after the last. */
export type StartPdfBuild = (source: ExportSource, plain: readonly number[], onParse: (index: number) => void) => PdfBuildRun;

export async function pdfWithinBudget(source: ExportSource, start: StartPdfBuild, budgetMs: (text: string) => number = markdownParseBudgetMs): Promise<ArrayBuffer> {
  const plain = new Set<number>();
  for (;;) {
    const outcome = await new Promise<{ bytes: ArrayBuffer } | { stuck: number }>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const run = start(source, [...plain], (index) => {
        clearTimeout(timer);
        if (index < 0 || index >= source.messages.length) return;
        const message = source.messages[index]!;
        timer = setTimeout(() => {
          run.stop();
          resolve({ stuck: index });
        }, budgetMs(messageText(message)));
      });
      run.result.then(
        (bytes) => {
          clearTimeout(timer);
          resolve({ bytes });
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
    if ('bytes' in outcome) return outcome.bytes;
    // Cannot repeat: a plain message is never parsed, so it never runs past its budget again.
    plain.add(outcome.stuck);
  }
}
