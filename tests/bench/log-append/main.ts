/**
 * Bench page: appends message.added events with the app's append path, or writes the same rows with raw Dexie
 * bulkPut (see AppendRunConfig.mode), into a fresh ParleyDB (same schema), in batches, and times it.
 */
import Dexie from 'dexie';
import { makeEvent } from '../../../src/events/catalogue';
import type { NewEvent } from '../../../src/events/catalogue';
import type { ConversationRow, MessageRow } from '../../../src/events/model';
import { ParleyDB } from '../../../src/worker/db/schema';
import { appendEvents } from '../../../src/worker/log';
import type { AppendRunConfig, AppendRunResult, BenchPageApi } from './page-api';
import { mulberry32, sampleMessage, sampleText } from './sample-log';

const T0 = 1_700_000_000_000;

function conversation(slug: string): ConversationRow {
  return { id: 1, uuid: `uuid-${slug}`, slug, name: 'Bench conversation', createdAt: T0, updatedAt: T0, latestMessage: '', isMediaOnly: false };
}

/** A session's worth of message.added events: user prompt, then the (finished) assistant reply, alternating. */
function messageEvents(slug: string, count: number, seed: number): NewEvent[] {
  const rand = mulberry32(seed);
  const out: NewEvent[] = [];
  for (let i = 1; i <= count; i++) {
    const user = i % 2 === 1;
    const message: MessageRow = sampleMessage({
      id: i,
      conversationSlug: slug,
      timestamp: T0 + i * 1000,
      role: user ? 'user' : 'assistant',
      prompt: user ? sampleText(rand, 20, 300) : sampleText(rand, 200, 1500),
      model: 'chatgpt-4o-latest',
      parentMessageId: i === 1 ? null : i - 1,
      branchDepth: i - 1,
      ...(user ? {} : { cost: 0.0012, paymentSource: 'USD' as const, outputTokens: 300 }),
    });
    out.push(makeEvent('message.added', { message }, `bench-${seed}-${i}`, T0 + i * 1000));
  }
  return out;
}

function nativeTx(db: ParleyDB, stores: string[], fn: (t: IDBTransaction) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = db.backendDB().transaction(stores, 'readwrite');
    t.oncomplete = () => resolve();
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error);
    fn(t);
  });
}

async function runProbe(db: ParleyDB, probe: NonNullable<AppendRunConfig['probe']>, batches: NewEvent[][], rowBatches: MessageRow[][], conv: ConversationRow): Promise<void> {
  for (let b = 0; b < batches.length; b++) {
    const events = batches[b] as NewEvent[];
    const rows = rowBatches[b] as MessageRow[];
    switch (probe) {
      case 'dexie-app':
        await appendEvents(db, events, { path: 'dexie' });
        break;
      case 'native-raw':
        await nativeTx(db, ['messages'], (t) => {
          for (const r of rows) t.objectStore('messages').put(r);
        });
        break;
      case 'native-events+messages':
      case 'native-floor':
        await nativeTx(db, ['events', 'conversations', 'messages'], (t) => {
          for (const e of events) t.objectStore('events').add(e);
          for (const r of rows) t.objectStore('messages').put(r);
          if (probe === 'native-floor') t.objectStore('conversations').put({ ...conv, updatedAt: b });
        });
        break;
    }
  }
}

async function run(config: AppendRunConfig): Promise<AppendRunResult> {
  const name = `bench-${config.label}`;
  await Dexie.delete(name);
  const db = new ParleyDB(name);
  await db.open();
  const slug = 'bench-conversation';
  const events = messageEvents(slug, config.messages, config.seed);
  const batches: NewEvent[][] = [];
  for (let i = 0; i < events.length; i += config.batchSize) batches.push(events.slice(i, i + config.batchSize));
  const rowBatches = batches.map((b) => b.map((e) => (e.type === 'message.added' ? e.payload.message : (null as never))));

  // Same starting state for both: one conversation row (the app through its log).
  if (config.mode === 'app') await appendEvents(db, [makeEvent('conversation.created', { conversation: conversation(slug) }, `conv-${config.label}`, T0)]);
  else await db.conversations.put(conversation(slug));

  const t0 = performance.now();
  if (config.probe !== undefined) {
    await runProbe(db, config.probe, batches, rowBatches, conversation(slug));
  } else if (config.mode === 'app') {
    for (const batch of batches) await appendEvents(db, batch);
  } else if (config.mode === 'raw-log') {
    const conv = conversation(slug);
    for (const [i, batch] of batches.entries()) {
      const rows = rowBatches[i] ?? [];
      const last = rows.at(-1);
      await db.transaction('rw', db.events, db.messages, db.conversations, async () => {
        await db.events.bulkPut(batch);
        await db.messages.bulkPut(rows);
        if (last) await db.conversations.put({ ...conv, updatedAt: last.timestamp, latestMessage: typeof last.prompt === 'string' ? last.prompt.slice(0, 100) : '' });
      });
    }
  } else {
    for (const rows of rowBatches) await db.messages.bulkPut(rows);
  }
  const ms = performance.now() - t0;
  const stored = await db.messages.count();
  db.close();
  await Dexie.delete(name);
  return { mode: config.mode, ms, messages: config.messages, batches: batches.length, stored };
}

const api: BenchPageApi = { run };
window.parleyBench = api;
const status = document.getElementById('status');
if (status) status.textContent = 'ready';
