/**
 * Check a whole NDJSON log the way the app would read it: decode every line, validate and upcast every event, and
 * fold it (read models, preferences, deposits). Reports the first bad line (1 = header) with the reason.
 * Pure: takes the file's text.
 */
import { iterateLog, LogFormatError } from '../events/codec';
import type { LogHeader } from '../events/codec';
import type { NewEvent, StoredEvent } from '../events/catalogue';
import { MemoryStore } from '../projections/memory-store';
import { applyPayments, EMPTY_PAYMENTS } from '../projections/payments';
import { applyPreferences } from '../projections/preferences';
import { dispatchOf, writesOfEvent } from '../projections/projection';
import { projections } from '../projections/registry';
import type { Write } from '../projections/writes';
import { DEFAULT_PREFERENCES } from '../protocol/preferences';

export type CheckResult =
  | { ok: true; header: LogHeader; events: (NewEvent | StoredEvent)[] }
  | { ok: false; line: number; reason: string; /** Events read without fault before the bad line. */ good: number };

export function checkLog(text: string): CheckResult {
  const events: (NewEvent | StoredEvent)[] = [];
  let header: LogHeader;
  try {
    const stream = iterateLog(text);
    header = stream.header;
    const store = new MemoryStore();
    const dispatch = dispatchOf(projections);
    const writes: Write[] = [];
    let preferences = DEFAULT_PREFERENCES;
    let payments = EMPTY_PAYMENTS;
    for (const e of stream.events) {
      try {
        writes.length = 0;
        writesOfEvent(dispatch, e, writes);
        store.applyAll(writes);
        preferences = applyPreferences(preferences, e);
        payments = applyPayments(payments, e);
      } catch (err) {
        return { ok: false, line: events.length + 2, reason: `folding '${e.type}' failed: ${err instanceof Error ? err.message : String(err)}`, good: events.length };
      }
      events.push(e);
    }
  } catch (err) {
    if (err instanceof LogFormatError) return { ok: false, line: err.line, reason: err.reason, good: events.length };
    throw err;
  }
  return { ok: true, header, events };
}
