import { describe, expect, it } from 'vitest';
import { trackWrite, writesSettled } from '../../../src/ui/writes';

describe('writes this tab started (a Send waits for them)', () => {
  it('settles only after every tracked write, failed ones and ones tracked while waiting included', async () => {
    const order: string[] = [];
    let finishA!: () => void;
    const a = trackWrite(new Promise<void>((r) => (finishA = r)).then(() => void order.push('a')));
    const b = trackWrite(Promise.reject(new Error('refused')));
    b.catch(() => order.push('b'));
    const waiting = writesSettled().then(() => order.push('settled'));
    const c = trackWrite(new Promise<void>((r) => setTimeout(r, 20)).then(() => void order.push('c')));
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(['b']);
    finishA();
    await Promise.all([a, c, waiting]);
    expect(order).toEqual(['b', 'a', 'c', 'settled']);
  });

  it('is settled at once when nothing is in flight', async () => {
    let settled = false;
    void writesSettled().then(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(true);
  });
});
