/**
 * Rows written behind: recorded in memory under a key and written in batches, one statement per batch, so the
 * request that recorded one does not wait on the database (a statement holds PGlite's thread, ./pglite-thread.ts).
 * Used for the $0 entries of free replies (money/free-replies.ts) and, on the embedded database, for request
 * bindings (body/request-binding.ts).
 *
 *  - A key is queued once (a second record of it is ignored); `delete` takes one back, also while its batch is
 *    being written (a failed write then does not queue it again).
 *  - Every `flushMs` after the first record, or once `maxBatch` are queued, one batch of at most `maxBatch` is
 *    written. Batches never overlap, and the event loop runs between two of them. What is left queued after a
 *    batch is written next (at once if a full batch waits, else after `flushMs`), with no further record needed.
 *  - A failed write is logged and its items go back to the front of the queue; batches then wait for the retry
 *    timer (10 x `flushMs`) rather than starting at `maxBatch`.
 *  - `drain()` writes until nothing queued before it is left and says whether that worked; `close()` writes what is
 *    left, batch by batch, until done or a write fails.
 */
/** How long the first item waits for others, and the most items a batch holds (on PGlite about 3 ms for 128 rows). */
export const WRITE_BEHIND_MS = 100;
export const WRITE_BEHIND_BATCH = 128;

export interface WriteBehindOptions {
  /** Who writes and what, for the log: "{name}: writing 3 {what} failed ...". */
  name: string;
  what: string;
  flushMs: number;
  maxBatch: number;
  log: (line: string) => void;
}

interface Queued<T> {
  item: T;
  seq: number;
}

export class WriteBehind<T> {
  private queued = new Map<string, Queued<T>>();
  /** The batch being written: a key deleted meanwhile is removed here, so a failed write does not queue it again. */
  private inFlight = new Map<string, Queued<T>>();
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private writing: Promise<boolean> | null = null;
  /** A flush asked for while one writes: runs once after it. */
  private again: Promise<boolean> | null = null;
  private closed = false;
  /** After a failed write, batches wait for the retry timer rather than going at maxBatch. */
  private backoffUntil = 0;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly options: WriteBehindOptions,
  ) {}

  get size(): number {
    return this.queued.size;
  }

  /** The item queued under `key`, or being written. */
  get(key: string): T | undefined {
    return (this.queued.get(key) ?? this.inFlight.get(key))?.item;
  }

  /** The items not yet in the database: queued, and those of the batch being written. */
  *values(): IterableIterator<T> {
    for (const q of this.queued.values()) yield q.item;
    for (const q of this.inFlight.values()) yield q.item;
  }

  /** Queues `item` under `key` (ignored when the key is queued already); written with the next batch. */
  add(key: string, item: T): void {
    if (this.queued.has(key)) return;
    this.queued.set(key, { item, seq: ++this.seq });
    if (this.closed) return;
    if (this.queued.size >= this.options.maxBatch && Date.now() >= this.backoffUntil) void this.flush();
    else this.arm(this.options.flushMs);
  }

  /**
   * Takes a key back. One in the batch being written is not queued again if that write fails, and the promise
   * resolves once that write is over (whether it wrote the key or not), so that what the caller does next comes after.
   */
  async delete(key: string): Promise<void> {
    this.queued.delete(key);
    if (this.inFlight.delete(key) && this.writing) await this.writing;
  }

  /** Drops the oldest queued item, returning its key. */
  dropOldest(): string | undefined {
    const oldest = this.queued.keys().next();
    if (oldest.done === true) return undefined;
    this.queued.delete(oldest.value);
    return oldest.value;
  }

  /** Writes one batch of what is queued now (after the write under way); false when that write failed. */
  flush(): Promise<boolean> {
    if (this.writing) {
      // After the write under way, and after the event loop has run once (an in-memory PGlite runs on this thread).
      this.again ??= this.writing
        .then(() => new Promise<void>((r) => setImmediate(r)))
        .then(() => {
          this.again = null;
          return this.flush();
        });
      return this.again;
    }
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queued.size === 0) return Promise.resolve(true);
    const batch = new Map<string, Queued<T>>();
    for (const [k, q] of this.queued) {
      batch.set(k, q);
      if (batch.size >= this.options.maxBatch) break;
    }
    for (const k of batch.keys()) this.queued.delete(k);
    this.inFlight = batch;
    const writing = this.writeBatch(batch).finally(() => {
      this.writing = null;
      // What was queued past this batch is written next, whether or not more items come to trigger it.
      if (this.queued.size > 0) this.arm(this.queued.size >= this.options.maxBatch ? 0 : this.options.flushMs);
    });
    this.writing = writing;
    return writing;
  }

  private async writeBatch(batch: Map<string, Queued<T>>): Promise<boolean> {
    const items = Array.from(batch.values(), (q) => q.item);
    try {
      await this.write(items);
      return true;
    } catch (e) {
      this.options.log(`${this.options.name}: writing ${items.length} ${this.options.what} failed (kept for the next batch): ${e instanceof Error ? e.message : String(e)}`);
      const rest = this.queued;
      this.queued = new Map(this.inFlight); // less what was deleted during the write
      for (const [k, q] of rest) this.queued.set(k, q);
      this.backoffUntil = Date.now() + this.options.flushMs * 10;
      this.arm(this.options.flushMs * 10);
      return false;
    } finally {
      this.inFlight = new Map();
    }
  }

  private arm(ms: number): void {
    if (this.closed || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
    this.timer.unref?.();
  }

  /**
   * Writes, batch by batch, until nothing queued before this call is left (what is queued meanwhile may go along).
   * False when a write failed: what it held is queued again.
   */
  async drain(): Promise<boolean> {
    const mark = this.seq;
    if (this.writing && !(await this.writing)) return false;
    for (;;) {
      const oldest = this.queued.values().next();
      if (oldest.done === true || oldest.value.seq > mark) return true;
      if (!(await this.flush())) return false;
    }
  }

  /** Writes what is left (until a write fails); later items are written by a last flush only. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    while (this.queued.size > 0 && (await this.flush()));
  }
}
