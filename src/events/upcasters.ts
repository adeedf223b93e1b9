/**
 * Upcasters: pure functions lifting an event of an older version to the next version of its type. An old event is
 * never rewritten in the log; it is upcast when read (replay, import, rebuild). `upcast` runs the chain
 * v -> v+1 -> ... -> CURRENT_VERSION[type].
 *
 * To change an event's shape: add the new payload type to catalogue.ts, bump CURRENT_VERSION, and register the
 * upcaster from the previous version here (keyed by the version it upgrades FROM). Tests cover every step.
 */
import { CURRENT_VERSION } from './catalogue';
import type { EventType, MessageAddedV2, NewEvent, QueueMessageAddedV2, RawEvent, StoredEvent } from './catalogue';
import { upgradeMessageRowToV41 } from './message-upgrade';
import type { LegacyMessageRow } from './message-upgrade';
import { checkEnvelope, checkPayload, checkShape, isEventType, isObj, messageV1Shape } from './validate';

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

/** message.added v1 (pre-branch row) -> v2: exactly the schema v41 database upgrade of a message row. */
function messageAddedV1toV2(payload: unknown): MessageAddedV2 {
  const bad = checkShape(payload, { message: isObj }, 'payload') ?? checkShape((payload as { message: unknown }).message, messageV1Shape, 'payload.message');
  if (bad !== null) throw new UpcastError('invalid-payload', `message.added v1: ${bad}`);
  const message = (payload as { message: LegacyMessageRow }).message;
  // Very old rows carry no UI status; a stored v1 message was a finished one.
  const withStatus: LegacyMessageRow = message.status === undefined ? { ...message, status: 'done' } : message;
  return { message: upgradeMessageRowToV41(withStatus) };
}

/** queue.messageAdded v1 (no web search kept) -> v2: the message was queued with web search off. */
function queueMessageAddedV1toV2(payload: unknown): QueueMessageAddedV2 {
  if (!isObj(payload)) throw new UpcastError('invalid-payload', 'queue.messageAdded v1: payload must be an object');
  return { ...(payload as unknown as Omit<QueueMessageAddedV2, 'webSearch'>), webSearch: null };
}

/** Upcasters by event type, keyed by the version they upgrade from. */
export const upcasters: { readonly [K in EventType]: Readonly<Record<number, Upcaster>> } = {
  'conversation.created': {},
  'message.added': { 1: messageAddedV1toV2 },
  'reply.started': {},
  'reply.checkpointed': {},
  'reply.completed': {},
  'reply.failed': {},
  'reply.interrupted': {},
  'conversation.renamed': {},
  'conversation.deleted': {},
  'conversation.restored': {},
  'conversation.purged': {},
  'conversation.pinned': {},
  'conversation.unpinned': {},
  'conversation.instructionsSet': {},
  'instruction.created': {},
  'instruction.updated': {},
  'instruction.deleted': {},
  'queue.messageAdded': { 1: queueMessageAddedV1toV2 },
  'queue.messageRemoved': {},
  'message.branched': {},
  'branch.activated': {},
  'message.deleted': {},
  'message.retried': {},
  'reply.continued': {},
  'conversation.duplicated': {},
  'preferences.changed': {},
  'image.generated': {},
  'image.answered': {},
  'image.favourited': {},
  'video.requested': {},
  'video.statusChanged': {},
  'modelSettings.changed': {},
  'payment.started': {},
  'payment.settled': {},
  'library.itemAdded': {},
  'library.itemProgressed': {},
  'library.itemCompleted': {},
  'library.itemFailed': {},
  'library.itemDeleted': {},
  'library.itemLinked': {},
  'library.messageLinked': {},
  'message.imagesExtracted': {},
  'library.itemUnlinked': {},
  'message.webSearched': {},
  'scratchpad.entryAdded': {},
  'scratchpad.entryEdited': {},
  'scratchpad.entryDeleted': {},
  'speech.generated': {},
  'folder.created': {},
  'folder.renamed': {},
  'folder.deleted': {},
  'conversation.movedToFolder': {},
  'updates.read': {},
};

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
  const { type } = raw;
  if (!isEventType(type)) throw new UpcastError('unknown-type', `unknown event type '${type}' (event ${raw.id})`);
  const current = CURRENT_VERSION[type];
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
      const step = upcasters[type][v];
      if (step === undefined) throw new UpcastError('missing-upcaster', `no upcaster for '${type}' from version ${v} to ${v + 1}`);
      payload = step(payload, raw);
    }
    event = { ...raw, v: current, payload };
  }
  if (options.validate) {
    const badPayload = checkPayload(type, event.payload);
    if (badPayload !== null) throw new UpcastError('invalid-payload', `'${type}' v${current}: ${badPayload}`);
  }
  return event as NewEvent | StoredEvent;
}
