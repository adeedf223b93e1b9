/**
 * Decoding a log for the Inspector in its own worker (./decode-worker.ts): the page only gathers the decoded events
 * as they arrive, in batches, so opening a 100,000-event file holds its thread for no long task.
 */
import type { NewEvent, StoredEvent } from '../../events/catalogue';

export type LogEvent = NewEvent | StoredEvent;

export interface DecodeRequest {
  /** The log's text, or the file to read it from (read in the worker). */
  source: string | Blob;
}

export type DecodeReply =
  | { kind: 'events'; events: LogEvent[] }
  | { kind: 'done'; exportedAt: number; types: string[]; slugs: string[] }
  /** The file's first fault, as decodeLog says it ("line N: reason"), or the worker's failure. */
  | { kind: 'error'; message: string };

export interface DecodedForInspector {
  events: LogEvent[];
  exportedAt: number;
  /** The event types present, sorted. */
  types: string[];
  /** The conversations named by the events (slugsOf), sorted. */
  slugs: string[];
}

/** Thrown for a log that does not decode; the message names the line. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

export function decodeInWorker(source: string | Blob): Promise<DecodedForInspector> {
  const worker = new Worker(new URL('./decode-worker.ts', import.meta.url), { type: 'module', name: 'parley-log-decode' });
  const events: LogEvent[] = [];
  return new Promise<DecodedForInspector>((resolve, reject) => {
    worker.onmessage = (message: MessageEvent<DecodeReply>) => {
      const reply = message.data;
      if (reply.kind === 'events') {
        for (let i = 0; i < reply.events.length; i++) events.push(reply.events[i] as LogEvent);
        return;
      }
      worker.terminate();
      if (reply.kind === 'error') reject(new DecodeError(reply.message));
      else resolve({ events, exportedAt: reply.exportedAt, types: reply.types, slugs: reply.slugs });
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new DecodeError(`the log could not be read (${event.message || 'the decoder stopped'})`));
    };
    worker.onmessageerror = () => {
      worker.terminate();
      reject(new DecodeError('the log could not be read (a batch of events did not arrive)'));
    };
    const request: DecodeRequest = { source };
    worker.postMessage(request);
  });
}
