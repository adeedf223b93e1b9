/**
 * How an event is declared (LiveStore's model): once, in its domain's file (./chat-events.ts, ...), as an entry of
 * that domain's table keyed by the event's name, with everything that must be said about it:
 *
 *   'reply.started': defineEvent({
 *     version: 1,                                        // the current version (appends carry it)
 *     payload: shape<ReplyStartedV1>({ messageId: int, ... }), // the schema of the current payload; it types the event
 *     touches: (p) => page(p.conversationSlug),         // what an append changes for the live queries
 *     upcasters: { 1: v1toV2 },                          // only when version > 1: one per older version
 *   }),
 *
 * The catalogue (./catalogue.ts) joins the domains' tables and derives every type from them (EventType,
 * EventPayloads, NewEvent); validation, upcasting and the worker's change notices read the declarations. Pure.
 */
import { checkShape } from './checks';
import type { Check, Shape } from './checks';

/** Any event read from an older log, before upcasting. */
export interface RawEvent {
  seq?: number;
  type: string;
  v: number;
  id: string;
  at: number;
  payload: unknown;
}

// ---- payload schemas ----

/**
 * The schema of an event's current payload. `test` is the cheap check every event of a replay runs; `explain`
 * runs only when it failed, to name the offending field (null: nothing to add to "payload is not a valid 'x'").
 */
export interface PayloadSchema<P> {
  readonly test: (payload: unknown) => boolean;
  readonly explain: (payload: unknown) => string | null;
  /** Type only (never set): the payload this schema admits, which becomes the event's payload type. */
  readonly __payload?: P;
}

/** A check for every field of P (no more, no fewer: a field added to the payload type must be checked here). */
export type ShapeOf<P> = { readonly [K in keyof P]-?: Check };

/**
 * A schema from one check per field of P, checked in order. `nested`: shapes of object fields, checked (under
 * `payload.<field>`) once the top level passed. `test`: a faster hand-written test of the same rule, for the events
 * a replay meets most.
 */
export function shape<P>(fields: ShapeOf<P>, options: { nested?: { readonly [K in keyof P]?: Shape }; test?: (payload: unknown) => boolean } = {}): PayloadSchema<P> {
  const nested = Object.entries(options.nested ?? {}) as [string, Shape][];
  const explain = (p: unknown): string | null => {
    const top = checkShape(p, fields as Shape, 'payload');
    if (top !== null) return top;
    for (const [key, inner] of nested) {
      const bad = checkShape((p as Record<string, unknown>)[key], inner, `payload.${key}`);
      if (bad !== null) return bad;
    }
    return null;
  };
  return { test: options.test ?? ((p) => explain(p) === null), explain };
}

/** A schema from a function naming what is wrong (null when nothing is), with an optional faster test. */
export function checked<P>(explain: (payload: unknown) => string | null, test?: (payload: unknown) => boolean): PayloadSchema<P> {
  return { test: test ?? ((p) => explain(p) === null), explain };
}

/** A schema from a test alone (a rejected payload gets the general "payload is not a valid 'x'"). */
export function tested<P>(test: (payload: unknown) => boolean): PayloadSchema<P> {
  return { test, explain: () => null };
}

// ---- what an append changes (src/worker/changes.ts) ----

/** What an appended event changes for the live queries: which conversations' pages, and the conversation list. */
export interface Touch {
  readonly list: boolean;
  readonly slugs: readonly string[];
}
/** No conversation's data (a query that shows it follows the event itself: presets, library, preferences...). */
export const NOTHING: Touch = { list: false, slugs: [] };
/** The conversation list only (which folder each is in). */
export const LIST: Touch = { list: true, slugs: [] };
/** One conversation's page. */
export const page = (slug: string): Touch => ({ list: false, slugs: [slug] });
/** One conversation's page and the conversation list (its name, order or latest message). */
export const pageAndList = (slug: string): Touch => ({ list: true, slugs: [slug] });

// ---- upcasters ----

export type UpcastErrorCode = 'invalid-envelope' | 'unknown-type' | 'newer-version' | 'missing-upcaster' | 'invalid-payload';

export class UpcastError extends Error {
  override readonly name = 'UpcastError';
  constructor(
    readonly code: UpcastErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Lifts a payload of version `from` to version `from + 1`. Throws UpcastError('invalid-payload') on bad input. */
export type Upcaster = (payload: unknown, event: RawEvent) => unknown;

/** 0, 1, ..., N-1 (N a number literal). */
type Below<N extends number, Acc extends unknown[] = []> = Acc['length'] extends N ? never : Acc['length'] | Below<N, [...Acc, unknown]>;
/** The versions an event of version V was stored in before: 1 .. V-1. */
type OlderVersions<V extends number> = Exclude<Below<V>, 0>;

// ---- the declaration ----

interface EventSpecBase<P, V extends number> {
  /** The current version: what an append stamps, and what every older event is upcast to when read. */
  version: V;
  payload: PayloadSchema<P>;
  touches: (payload: P) => Touch;
}

/** One upcaster per older version, keyed by the version it lifts from (a missing step is a type error). */
export type EventSpec<P, V extends number> = EventSpecBase<P, V> &
  ([OlderVersions<V>] extends [never] ? { upcasters?: undefined } : { upcasters: { readonly [F in OlderVersions<V>]: Upcaster } });

export interface EventDeclaration<P> {
  readonly version: number;
  readonly payload: PayloadSchema<P>;
  /** By the version they lift from; empty for an event that has only ever had version 1. */
  readonly upcasters: Readonly<Record<number, Upcaster>>;
  touches(payload: P): Touch;
}

export function defineEvent<P, V extends number>(spec: EventSpec<P, V>): EventDeclaration<P> {
  return { version: spec.version, payload: spec.payload, upcasters: spec.upcasters ?? {}, touches: spec.touches };
}

/** The payload type of a declaration. */
export type PayloadOf<D> = D extends EventDeclaration<infer P> ? P : never;
