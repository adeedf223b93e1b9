/**
 * Upcasting: an event of an older version is lifted to the current version of its type when read (replay,
 * import, rebuild); an old event is never rewritten in the log. `upcast` runs the chain v -> v+1 -> ... -> current
 * through the upcasters of the event's declaration (./define.ts: keyed by the version they lift from; a missing
 * step is a type error there).
 */
import { CURRENT_VERSION, declarationOf } from './catalogue';
import type { EventType, NewEvent, RawEvent, StoredEvent } from './catalogue';
import { UpcastError } from './define';
import type { Upcaster } from './define';
import { checkEnvelope, checkPayload } from './validate';

export { UpcastError } from './define';
export type { Upcaster, UpcastErrorCode } from './define';

/** Upcasters by event type, keyed by the version they upgrade from (read from the declarations). */
export const upcasters = Object.fromEntries(
  (Object.keys(CURRENT_VERSION) as EventType[]).map((type) => [type, declarationOf(type)!.upcasters]),
) as { readonly [K in EventType]: Readonly<Record<number, Upcaster>> };

export interface UpcastOptions {
  /** Also check the structure of the resulting payload (for events read from outside, e.g. an imported file). */
  validate?: boolean;
}

/**
 * Lift a raw event (any stored or exported version) to the current version of its type. Keeps `seq` when present.
 * Throws UpcastError for an unknown type, a version newer than this build knows, or malformed content.
 */
export function upcast(raw: RawEvent, options: UpcastOptions = {}): NewEvent | StoredEvent {
  const bad = checkEnvelope(raw);
  if (bad !== null) throw new UpcastError('invalid-envelope', bad);
  const type = raw.type as EventType;
  const declaration = declarationOf(type);
  if (declaration === undefined) throw new UpcastError('unknown-type', `unknown event type '${type}' (event ${raw.id})`);
  const current = declaration.version;
  if (raw.v > current) {
    throw new UpcastError(
      'newer-version',
      `event ${raw.id} is '${type}' version ${raw.v}, newer than this build supports (version ${current}); update the app`,
    );
  }
  let event: RawEvent = raw;
  if (raw.v < current) {
    let payload = raw.payload;
    for (let v = raw.v; v < current; v++) {
      const step = declaration.upcasters[v];
      if (step === undefined) throw new UpcastError('missing-upcaster', `no upcaster for '${type}' from version ${v} to ${v + 1}`);
      payload = step(payload, raw);
    }
    event = { ...raw, v: current, payload };
  }
  // The declaration's test first (the cheap check; the type was looked up once above), its explanation only on failure.
  if (options.validate && !declaration.payload.test(event.payload)) {
    const badPayload = checkPayload(type, event.payload);
    if (badPayload !== null) throw new UpcastError('invalid-payload', `'${type}' v${current}: ${badPayload}`);
  }
  return event as NewEvent | StoredEvent;
}
