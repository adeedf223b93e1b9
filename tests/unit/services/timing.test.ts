import { describe, expect, it } from 'vitest';
import { engineWorkerName, timingFromName } from '../../../src/worker/tab/timing';

describe('engine timings through the worker name', () => {
  it('round-trips known fields within bounds and ignores the rest', () => {
    const name = engineWorkerName({ getItem: () => JSON.stringify({ videoPollMs: 500, videoTimeoutMs: 4000, other: 1 }) });
    expect(timingFromName(name)).toEqual({ videoPollMs: 500, videoTimeoutMs: 4000 });
    expect(engineWorkerName({ getItem: () => null })).toBe('parley-engine');
    expect(timingFromName('parley-engine')).toEqual({});
    expect(timingFromName('parley-engine#{bad')).toEqual({});
    expect(timingFromName('parley-engine#{"videoPollMs":0,"videoTimeoutMs":"5"}')).toEqual({});
  });
});
