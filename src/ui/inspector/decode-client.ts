/**
 * Decoding a log for the Inspector in its own worker (./decode-worker.ts): the page only gathers the decoded events
 * as they arrive, in batches it asks for one at a time (two in flight), so opening a 100,000-event file holds its
 * thread for no long task of decoding.
 */
import type { NewEvent, StoredEvent } from '../../events/catalogue';

export type LogEvent = NewEvent | StoredEvent;

export type DecodeRequest =
  /** The log's text, or the file to read it from (read in the worker). */
  | { kind: 'open'; source: string | Blob }
  /** The page took a batch: the worker may send one more. */
  | { kind: 'next' };

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
        const more: DecodeRequest = { kind: 'next' };
        worker.postMessage(more);
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
    const request: DecodeRequest = { kind: 'open', source };
    worker.postMessage(request);
  });
}
