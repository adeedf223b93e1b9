/**
 * The building blocks of the payload schemas the event declarations carry (./define.ts): hand-written guards rather
 * than a schema library, because they run once per event on a replay, so they must be cheap, and they only check
 * what the projections rely on. A `Check` tests one value; a `Shape` is a record of checks, one per field, and
 * `checkShape` names the first field that fails.
 */

export type Check = (v: unknown) => boolean;
export type Shape = Record<string, Check>;

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str: Check = (v) => typeof v === 'string';
export const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
export const int: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v);
export const bool: Check = (v) => typeof v === 'boolean';
/** A field the projections tolerate in any form (an optional flag they compare with `=== true`, say). */
export const unchecked: Check = () => true;
export const nullable = (c: Check): Check => (v) => v === null || c(v);
export const optional = (c: Check): Check => (v) => v === undefined || c(v);
export const oneOf = (...values: string[]): Check => {
  const set = new Set(values);
  return (v) => typeof v === 'string' && set.has(v);
};
export const strings: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
export const ints: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x));
export const objects: Check = (v) => Array.isArray(v) && v.every(isObj);

const part: Check = (v) =>
  isObj(v) &&
  ((v.type === 'text' && typeof v.text === 'string') ||
    (v.type === 'image_url' && isObj(v.image_url) && typeof v.image_url.url === 'string'));
/** A message's prompt: a string, or a list of text and image_url parts. */
export const prompt: Check = (v) => {
  if (typeof v === 'string') return true;
  if (!Array.isArray(v)) return false;
  for (const p of v) if (!part(p)) return false;
  return true;
};
export const paymentSource = oneOf('USD', 'nano');
export const role = oneOf('system', 'user', 'assistant', 'tool');
export const status = oneOf('pending', 'streaming', 'done', 'error');

function describe(c: Check): string {
  const names: [Check, string][] = [[str, 'a string'], [num, 'a number'], [int, 'an integer'], [bool, 'a boolean']];
  return names.find(([k]) => k === c)?.[1] ?? 'valid';
}

type Compiled = readonly (readonly [string, Check])[];
const compiled = new WeakMap<Shape, Compiled>();
function compile(shape: Shape): Compiled {
  let c = compiled.get(shape);
  if (c === undefined) compiled.set(shape, (c = Object.entries(shape)));
  return c;
}

/** Null when `value` is an object whose fields pass `shape`, else the first failing field, named under `path`. */
export function checkShape(value: unknown, shape: Shape, path: string): string | null {
  if (!isObj(value)) return `${path} must be an object`;
  const fields = compile(shape);
  for (let i = 0; i < fields.length; i++) {
    const [key, check] = fields[i] as readonly [string, Check];
    const v = value[key];
    if (!check(v)) {
      const what = v === undefined ? 'is missing' : `is not ${describe(check)} (${JSON.stringify(v)?.slice(0, 60)})`;
      return `${path}.${key} ${what}`;
    }
  }
  return null;
}

// Fast-path letters: for the hand-written boolean tests of the events a replay meets most (one expression per type
// with direct property reads, monomorphic, no closures). Only when one fails does a schema's `explain` run.
export type R = Record<string, unknown>;
export const S = (v: unknown): boolean => typeof v === 'string';
export const N = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
export const I = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v);
export const B = (v: unknown): boolean => typeof v === 'boolean';
export const O = (v: unknown): v is R => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isStatus = (v: unknown): boolean => v === 'done' || v === 'pending' || v === 'streaming' || v === 'error';
export const isRole = (v: unknown): boolean => v === 'user' || v === 'assistant' || v === 'system' || v === 'tool';
export const isSource = (v: unknown): boolean => v === null || v === 'USD' || v === 'nano';
