/**
 * Engine timings a page may shorten (browser tests of the spec's long clocks: the video's 10 s polling and 20 minute
 * timeout). The tab reads `localStorage['parley:engine-timing']` (JSON) and passes it in the engine worker's name,
 * the one thing a module worker receives before it runs; the worker takes only known fields with sane bounds. It
 * changes only how soon this browser's own engine gives up or asks again: nothing the gateway or the money sees.
 */
export const TIMING_STORAGE_KEY = 'parley:engine-timing';
const PREFIX = 'parley-engine';

export interface EngineTiming {
  videoPollMs?: number;
  videoTimeoutMs?: number;
}

/** The worker name carrying the timings (the plain name when there are none). */
export function engineWorkerName(storage: Pick<Storage, 'getItem'> | null): string {
  const raw = storage?.getItem(TIMING_STORAGE_KEY);
  return raw ? `${PREFIX}#${raw}` : PREFIX;
}

export function timingFromName(name: string): EngineTiming {
  const i = name.indexOf('#');
  if (i < 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(name.slice(i + 1));
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null) return {};
  const v = value as Record<string, unknown>;
  const out: EngineTiming = {};
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 50 && n <= 3_600_000;
  if (ok(v.videoPollMs)) out.videoPollMs = v.videoPollMs;
  if (ok(v.videoTimeoutMs)) out.videoTimeoutMs = v.videoTimeoutMs;
  return out;
}
