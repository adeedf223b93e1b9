/**
 * The waiting items of the parse pool (./pool.ts), one FIFO queue per owner (a session). The next item goes to the
 * owner with the fewest items running now, and among those to the one whose first item has waited longest. So a
 * session that floods the pool keeps its threads busy only while nobody else waits: another session's item is the
 * next to start as soon as any thread is free, and waits at most about one item's budget.
 */

interface Waiting<T> {
  item: T;
  /** Order of arrival, across owners. */
  seq: number;
}

export class FairQueue<T> {
  private readonly queues = new Map<string, Waiting<T>[]>();
  private seq = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Items the owner has waiting. */
  waiting(owner: string): number {
    return this.queues.get(owner)?.length ?? 0;
  }

  push(owner: string, item: T): void {
    let queue = this.queues.get(owner);
    if (!queue) {
      queue = [];
      this.queues.set(owner, queue);
    }
    queue.push({ item, seq: this.seq++ });
    this.count++;
  }

  /** Removes one waiting item (one that gave up before it started); false when it is not waiting. */
  remove(owner: string, item: T): boolean {
    const queue = this.queues.get(owner);
    const at = queue?.findIndex((w) => w.item === item) ?? -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.queues.delete(owner);
    this.count--;
    return true;
  }

  /**
   * The next item to start, given how many items each owner has running now; null when nothing waits. With `fits`,
   * only an owner whose first item fits is considered (an owner's items stay in their order).
   */
  take(running: (owner: string) => number, fits?: (item: T) => boolean): { owner: string; item: T } | null {
    let best: { owner: string; queue: Waiting<T>[]; running: number; seq: number } | null = null;
    for (const [owner, queue] of this.queues) {
      const head = queue[0];
      if (!head || (fits && !fits(head.item))) continue;
      const r = running(owner);
      if (best === null || r < best.running || (r === best.running && head.seq < best.seq)) best = { owner, queue, running: r, seq: head.seq };
    }
    if (best === null) return null;
    const first = best.queue.shift() as Waiting<T>;
    if (best.queue.length === 0) this.queues.delete(best.owner);
    this.count--;
    return { owner: best.owner, item: first.item };
  }

  /** Empties the queue, returning every waiting item. */
  drain(): T[] {
    const all = [...this.queues.values()].flat().sort((a, b) => a.seq - b.seq).map((w) => w.item);
    this.queues.clear();
    this.count = 0;
    return all;
  }
}
