/// <reference lib="webworker" />
/**
 * The Inspector's decode worker: an exported log (a file, or the live log's text) is read, decoded, validated and
 * upcast here, off the page's thread (several seconds for 100,000 events), and its events are posted back in
 * batches small enough that the page receives each in a short task. One log per worker; the page ends it after.
 */
import { iterateLog, LogFormatError } from '../../events/codec';
import { slugsOf } from '../../inspect';
import type { DecodeReply, DecodeRequest } from './decode-client';

const scope = self as unknown as DedicatedWorkerGlobalScope;
/** Events per message: the page copies each batch in well under 50 ms. */
const BATCH = 1000;

scope.onmessage = async (message: MessageEvent<DecodeRequest>) => {
  const post = (reply: DecodeReply) => scope.postMessage(reply);
  try {
    const { source } = message.data;
    const text = typeof source === 'string' ? source : await source.text();
    const log = iterateLog(text);
    const types = new Set<string>();
    const slugs = new Set<string>();
    let batch: DecodeReply & { kind: 'events' } = { kind: 'events', events: [] };
    for (const event of log.events) {
      types.add(event.type);
      for (const slug of slugsOf(event)) slugs.add(slug);
      batch.events.push(event);
      if (batch.events.length === BATCH) {
        post(batch);
        batch = { kind: 'events', events: [] };
      }
    }
    if (batch.events.length > 0) post(batch);
    post({ kind: 'done', exportedAt: log.header.exportedAt, types: [...types].sort(), slugs: [...slugs].sort() });
  } catch (e) {
    post({ kind: 'error', message: e instanceof LogFormatError ? e.message : String(e) });
  }
};
