/**
 * Group commit for one kind of statement: the items that arrive during one turn of the event loop (and while a
 * statement of theirs runs) go into one statement. An item starts a statement at the end of the turn it arrived
 * in (setImmediate: after the I/O callbacks of that turn, which under load are many requests), so a lone request
 * waits only for that turn, and under load the fixed cost of a statement (on PGlite, mostly parsing and planning on
 * its one thread) is shared by every request of the batch.
 *
 * `run` gets the items in arrival order and returns one result per item in the same order; if it throws, every
 * item of the batch is rejected with the error.
 */
export class Batcher<In, Out> {
  private queue: { item: In; resolve: (o: Out) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private running = false;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch = 64,
  ) {}

  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const out = await this.run(batch.map((b) => b.item));
          if (out.length !== batch.length) throw new Error(`batch of ${batch.length} got ${out.length} results`);
          batch.forEach((b, i) => b.resolve(out[i] as Out));
        } catch (e) {
          for (const b of batch) b.reject(e);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
