/**
 * Structural checks of event envelopes and payloads read from outside (an imported NDJSON log). The payload
 * schemas are in the events' declarations (./define.ts, one per event in its domain's file); this module runs them.
 * Each check returns an error text, or null when the value is acceptable.
 */
import type { EventType } from './catalogue';
import { declarationOf } from './catalogue';
import { int, isObj, num } from './checks';

export { SCRATCHPAD_TYPES } from './conversation-events';

export function isEventType(type: string): type is EventType {
  return declarationOf(type) !== undefined;
}

/** Checks the envelope of any event (before upcasting). */
export function checkEnvelope(value: unknown): string | null {
  if (!isObj(value)) return 'event must be a JSON object';
  if (typeof value.type !== 'string' || value.type === '') return 'event.type must be a non-empty string';
  if (!int(value.v) || (value.v as number) < 1) return `event.v must be a positive integer (got ${JSON.stringify(value.v)})`;
  if (typeof value.id !== 'string' || value.id === '') return 'event.id must be a non-empty string';
  if (!num(value.at)) return 'event.at must be a number (milliseconds)';
  if (value.seq !== undefined && !(int(value.seq) && (value.seq as number) > 0)) return 'event.seq must be a positive integer when present';
  if (!('payload' in value)) return 'event.payload is missing';
  return null;
}

/** Checks the payload of a current-version event. */
export function checkPayload(type: EventType, payload: unknown): string | null {
  const schema = declarationOf(type)!.payload;
  if (schema.test(payload)) return null;
  return schema.explain(payload) ?? `payload is not a valid '${type}'`;
}
