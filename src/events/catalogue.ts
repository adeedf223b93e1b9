/**
 * The domain event catalogue: every change to local data is one of these, past tense, versioned. Each event is
 * declared once, in its domain's table (./define.ts explains a declaration); this module joins the tables and
 * derives every type from them, so adding an event is one declaration.
 * Events are never removed or reinterpreted; a new shape is a new version plus an upcaster in its declaration.
 * Ids, timestamps and every other nondeterministic value travel in the payload.
 */
import { accountEvents } from './account-events';
import { chatEvents } from './chat-events';
import { conversationEvents } from './conversation-events';
import { libraryEvents } from './library-events';
import { mediaEvents } from './media-events';
import { moneyEvents } from './money-events';
import { treeEvents } from './tree-events';
import type { EventDeclaration, PayloadOf, Touch } from './define';

// The payload shapes live by domain in these modules; re-exported so that every import of this path stays.
export type * from './chat-events';
export type * from './conversation-events';
export type * from './tree-events';
export type * from './media-events';
export type * from './money-events';
export type * from './account-events';
export type * from './library-events';
export type { RawEvent } from './define';

/** The domains' tables of declarations: a new domain file is added here, once. */
const DOMAINS = [chatEvents, conversationEvents, treeEvents, mediaEvents, moneyEvents, accountEvents, libraryEvents] as const;

/**
 * The declarations by name, for lookups by a string read from outside (a Map: no prototype keys). Throws when two
 * domains declare the same name.
 */
export function joinDomains(domains: readonly Readonly<Record<string, EventDeclaration<unknown>>>[]): ReadonlyMap<string, EventDeclaration<unknown>> {
  const out = new Map<string, EventDeclaration<unknown>>();
  for (const domain of domains) {
    for (const [name, declaration] of Object.entries(domain)) {
      if (out.has(name)) throw new Error(`event '${name}' is declared twice`);
      out.set(name, declaration);
    }
  }
  return out;
}
const DECLARATIONS = joinDomains(DOMAINS);

/** A union of object types as their intersection: the domains' tables joined into one type. */
type Joined<U> = (U extends unknown ? (u: U) => void : never) extends (j: infer J) => void ? J : never;

/** Every event's declaration, by type. */
export const EVENTS = Object.fromEntries(DECLARATIONS) as Joined<(typeof DOMAINS)[number]>;

export type EventType = keyof typeof EVENTS;

/** Current event shapes, by type (each declaration's payload schema says it). */
export type EventPayloads = { [K in EventType]: PayloadOf<(typeof EVENTS)[K]> };

/** The declaration of `type`, or undefined for a type this build does not know. */
export function declarationOf(type: string): EventDeclaration<unknown> | undefined {
  return DECLARATIONS.get(type);
}

/** Current version of each event type. */
export const CURRENT_VERSION = Object.fromEntries([...DECLARATIONS].map(([name, d]) => [name, d.version])) as { readonly [K in EventType]: number };

/** What an appended event changes for the live queries (src/worker/changes.ts). */
export function touchesOf(event: NewEvent): Touch {
  return (DECLARATIONS.get(event.type) as EventDeclaration<unknown>).touches(event.payload);
}

/** An event as a command creates it (current version). */
export type NewEvent = {
  [K in EventType]: { type: K; v: number; id: string; at: number; payload: EventPayloads[K] };
}[EventType];

/** An event as stored in the log: `seq` is the log position (IndexedDB auto-increment). */
export type StoredEvent = NewEvent & { seq: number };

export function makeEvent<K extends EventType>(type: K, payload: EventPayloads[K], id: string, at: number): NewEvent {
  return { type, v: EVENTS[type].version, id, at, payload } as NewEvent;
}
