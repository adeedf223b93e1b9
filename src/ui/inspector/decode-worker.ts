/// <reference lib="webworker" />
/**
 * The Inspector's decode worker: an exported log (a file, or the live log's text) is read, decoded, validated and
 * upcast here, off the page's thread (several seconds for 100,000 events), and its events are posted back in
 * batches small enough that the page receives each in a short task. One log per worker; the page ends it after.
 */
import { iterateLog, LogFormatError } from '../../events/codec';
import { slugsOf } from '../../inspect';
import type { DecodeReply, DecodeRequest, LogEvent } from './decode-client';

const scope = self as unknown as DedicatedWorkerGlobalScope;
/** Events per message: the page copies each batch in well under 50 ms. */
const BATCH = 250;
/**
 * Batches sent and not yet taken by the page: the page asks for the next one as it takes one. Without that the
 * worker ran ahead and the browser handed the page dozens of queued batches in one task (0.6 s).
 */
const AHEAD = 2;

let next: (() => boolean) | null = null;

scope.onmessage = async (message: MessageEvent<DecodeRequest>) => {
  const post = (reply: DecodeReply) => scope.postMessage(reply);
  if (message.data.kind === 'next') {
    if (next !== null && !next()) next = null;
    return;
  }
  try {
    const { source } = message.data;
    const text = typeof source === 'string' ? source : await source.text();
    const log = iterateLog(text);
    const events = log.events[Symbol.iterator]();
    const types = new Set<string>();
    const slugs = new Set<string>();
    let finished = false;
    // Sends the next batch, or the end; false once the end is sent.
    next = () => {
      if (finished) return false;
      try {
        const batch: LogEvent[] = [];
        while (batch.length < BATCH) {
          const r = events.next();
          if (r.done === true) {
            finished = true;
            break;
          }
          const event = r.value;
          types.add(event.type);
          for (const slug of slugsOf(event)) slugs.add(slug);
          batch.push(event);
        }
        if (batch.length > 0) post({ kind: 'events', events: batch });
        if (finished) post({ kind: 'done', exportedAt: log.header.exportedAt, types: [...types].sort(), slugs: [...slugs].sort() });
      } catch (e) {
        finished = true;
        post({ kind: 'error', message: e instanceof LogFormatError ? e.message : String(e) });
      }
      return !finished;
    };
    for (let i = 0; i < AHEAD && next !== null; i++) if (!next()) next = null;
  } catch (e) {
    post({ kind: 'error', message: e instanceof LogFormatError ? e.message : String(e) });
  }
};
