import { describe, expect, it } from 'vitest';
import { fold, readModels } from '../../../src/projections/fold';
import { foldPayments } from '../../../src/projections/payments';
import { foldPreferences } from '../../../src/projections/preferences';
import { foldQueue } from '../../../src/projections/queue';
import { cloneStore, foldState, Timeline } from '../../../src/inspect';
import type { LogState } from '../../../src/inspect';
import { inspectorLog } from './fixture';

const events = inspectorLog();

function plain(s: LogState) {
  return { models: readModels(s.tables), preferences: s.preferences, payments: s.payments, queue: [...s.queue] };
}
function reference(n: number) {
  const head = events.slice(0, n);
  return { models: readModels(fold(head)), preferences: foldPreferences(head), payments: foldPayments(head), queue: [...foldQueue(head)] };
}

describe('Timeline: the state after any event', () => {
  it('equals a fold from zero of the first n events, at every position, whatever the snapshot interval', () => {
    for (const every of [1, 7, 50, 10_000]) {
      const t = new Timeline(events, every);
      for (const n of [0, 1, 6, 7, 8, 21, 40, 41, 99, 100, 101, events.length - 1, events.length]) expect(plain(t.stateAt(n)), `every ${every}, n ${n}`).toEqual(reference(n));
    }
  });

  it('answers in any order and keeps snapshots unharmed by what callers do with a state', () => {
    const t = new Timeline(events, 25);
    const late = t.stateAt(events.length);
    expect(t.snapshotCount).toBe(Math.floor(events.length / 25) + 1);
    late.tables.clear();
    expect(plain(t.stateAt(30))).toEqual(reference(30));
    expect(plain(t.stateAt(events.length))).toEqual(reference(events.length));
  });

  it('builds its snapshots one step at a time in the background, with the same states as built on demand', () => {
    const t = new Timeline(events, 9);
    expect(t.snapshotTotal).toBe(Math.floor(events.length / 9) + 1);
    expect(t.snapshotCount).toBe(1);
    let steps = 0;
    while (t.buildNextSnapshot()) steps++;
    expect(steps + 1).toBe(t.snapshotTotal - 1);
    expect(t.snapshotCount).toBe(t.snapshotTotal);
    expect(t.buildNextSnapshot()).toBe(false);
    for (const n of [0, 9, 10, 44, events.length]) expect(plain(t.stateAt(n)), `n ${n}`).toEqual(reference(n));
  });

  it('gives the states around one event as two lookups would', () => {
    const t = new Timeline(events, 8);
    for (const n of [1, 8, 9, 17, events.length]) {
      const { before, after } = t.statesAround(n);
      expect(plain(before), `before ${n}`).toEqual(reference(n - 1));
      expect(plain(after), `after ${n}`).toEqual(reference(n));
    }
    expect(() => t.statesAround(0)).toThrow(RangeError);
    expect(() => t.statesAround(events.length + 1)).toThrow(RangeError);
  });

  it('sees the queue, the preferences and the branch of the fixture', () => {
    const t = new Timeline(events, 10);
    const q = events.findIndex((e) => e.id === 'x-q-1');
    expect([...t.stateAt(q + 1).queue.values()].flat().map((e) => e.message.id)).toEqual(['qm-1']);
    expect(t.stateAt(q).queue.size).toBe(0);
    const end = t.stateAt(events.length);
    expect(end.preferences.theme).toBe('light');
    expect(end.preferences.maxTokens).toBe(2048);
    expect(end.tables.get('messages', 100_000)?.isActiveBranch).toBe(true);
  });

  it('rejects a position outside the log and finds positions by time', () => {
    const t = new Timeline(events, 10);
    expect(() => t.stateAt(-1)).toThrow(RangeError);
    expect(() => t.stateAt(events.length + 1)).toThrow(RangeError);
    expect(() => t.stateAt(1.5)).toThrow(RangeError);
    expect(() => new Timeline(events, 0)).toThrow(RangeError);
    expect(t.positionAtTime(events[0]!.at - 1)).toBe(0);
    expect(t.positionAtTime(events[4]!.at)).toBe(events.findLastIndex((e) => e.at === events[4]!.at) + 1);
    expect(t.positionAtTime(Number.MAX_SAFE_INTEGER)).toBe(events.length);
  });

  it('foldState and cloneStore give independent copies', () => {
    const s = foldState(events);
    const copy = cloneStore(s.tables);
    copy.clear('messages');
    expect(s.tables.size('messages')).toBeGreaterThan(0);
    expect(plain(s)).toEqual(reference(events.length));
  });
});
