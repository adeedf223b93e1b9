/// <reference lib="webworker" />
/**
 * The Markdown parse worker: model Markdown in, the rendered tree (hast) out, one text at a time, so that parsing a
 * long or hostile reply never holds the page's thread. The page terminates this worker when a text takes longer
 * than its budget (./parse-client.ts).
 */
import { markdownToHast } from './pipeline';
import type { ParseJob, WorkerReply } from './parse-client';

const scope = self as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = (event: MessageEvent<ParseJob>) => {
  const { id, text, hrefs } = event.data;
  let reply: WorkerReply;
  try {
    reply = { id, ok: true, tree: markdownToHast(text, hrefs) };
  } catch {
    // A library's bug (a stack overflow included): the page shows the text as plain text.
    reply = { id, ok: false };
  }
  scope.postMessage(reply);
};

scope.postMessage({ ready: true } satisfies WorkerReply);
