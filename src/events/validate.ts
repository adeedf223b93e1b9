/**
 * Structural checks of event envelopes and payloads read from outside (an imported NDJSON log). Hand-written
 * guards rather than a schema library: they run once per event on replay, so they must be cheap, and they only
 * check what the projections rely on. Each returns an error text, or null when the value is acceptable.
 */
import type { EventType } from './catalogue';
import { CURRENT_VERSION } from './catalogue';
import { checkPreferenceChanges } from '../protocol/preferences';
import { LIBRARY_PAYLOADS } from './library-validate';
import { accountPayloadChecks } from './account-events';

type Check = (v: unknown) => boolean;
type Shape = Record<string, Check>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str: Check = (v) => typeof v === 'string';
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const int: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v);
const bool: Check = (v) => typeof v === 'boolean';
const nullable = (c: Check): Check => (v) => v === null || c(v);
const optional = (c: Check): Check => (v) => v === undefined || c(v);
const oneOf = (...values: string[]): Check => {
  const set = new Set(values);
  return (v) => typeof v === 'string' && set.has(v);
};
const part: Check = (v) =>
  isObj(v) &&
  ((v.type === 'text' && typeof v.text === 'string') ||
    (v.type === 'image_url' && isObj(v.image_url) && typeof v.image_url.url === 'string'));
const prompt: Check = (v) => {
  if (typeof v === 'string') return true;
  if (!Array.isArray(v)) return false;
  for (const p of v) if (!part(p)) return false;
  return true;
};
const paymentSource = oneOf('USD', 'nano');
const role = oneOf('system', 'user', 'assistant', 'tool');
const status = oneOf('pending', 'streaming', 'done', 'error');

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

function checkShape(value: unknown, shape: Shape, path: string): string | null {
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

const conversationShape: Shape = {
  id: int, uuid: str, slug: str, name: str, createdAt: num, updatedAt: num, latestMessage: str, isMediaOnly: bool,
};
/** message.added v1: the pre-branch row (status may be missing in very old rows; the upcaster fills it). */
export const messageV1Shape: Shape = {
  id: int, conversationSlug: str, timestamp: num, role, prompt, model: str, status: optional(status),
};
const messageV2Shape: Shape = {
  ...messageV1Shape,
  status,
  parentMessageId: nullable(int),
  alternativeGroup: nullable(str),
  branchIndex: int,
  isActiveBranch: bool,
  branchDepth: int,
  updatedAt: num,
};
const replyBase: Shape = { messageId: int, conversationSlug: str, at: num };
const conversationPayload: Shape = { conversation: isObj };
const messagePayload: Shape = { message: isObj };
const replyStarted: Shape = { ...replyBase, model: str, requestId: str };
const replyCheckpointed: Shape = { ...replyBase, text: str, thinking: str };
const replyCompleted: Shape = {
  ...replyBase, text: str, thinking: str, cost: num, paymentSource: nullable(paymentSource), outputTokens: nullable(num),
  inputTokens: optional(nullable(num)),
};
const replyFailed: Shape = {
  ...replyBase, userMessageId: int, error: str, keepPartial: bool, text: str, thinking: str, cost: num,
  paymentSource: nullable(paymentSource),
};
const replyInterrupted: Shape = { ...replyBase, reason: str };
const slugAt: Shape = { slug: str, at: num };
const conversationRenamed: Shape = { ...slugAt, name: str, source: oneOf('user', 'generated') };
const conversationInstructionsSet: Shape = { ...slugAt, instructions: str };
const instructionShape: Shape = { id: int, name: str, instructions: str, createdAt: num, updatedAt: num };
const instructionPayload: Shape = { instruction: isObj };
const instructionUpdated: Shape = { id: int, name: str, instructions: str, at: num };
const instructionDeleted: Shape = { id: int, at: num };
const strings: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const queuedMessageShape: Shape = { id: str, prompt: str, attachments: strings, scrapedUrls: strings, scrapedContent: Array.isArray, timestamp: num };
const searchDepth = oneOf('standard', 'deep');
const queuedWebSearch: Check = (v) => v === null || (isObj(v) && searchDepth(v.depth));
const queueAdded: Shape = { conversationSlug: str, message: isObj, model: str, extraModels: strings, webSearch: queuedWebSearch, at: num };
const queueRemoved: Shape = { conversationSlug: str, id: str, reason: oneOf('removed', 'submitted'), at: num };

// The message tree (branches, delete, retry, continue, duplicate).
const ints: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x));
const reparent: Check = (v) => isObj(v) && int(v.messageId) && nullable(int)(v.parentMessageId);
const reparents: Check = (v) => Array.isArray(v) && v.every(reparent);
const objects: Check = (v) => Array.isArray(v) && v.every(isObj);
const messageBranched: Shape = { conversationSlug: str, messageId: int, alternativeGroup: str, at: num };
const branchActivated: Shape = { conversationSlug: str, alternativeGroup: str, messageId: int, at: num };
const messageDeleted: Shape = { conversationSlug: str, messageIds: ints, reparented: reparents, activated: nullable(int), ungrouped: ints, at: num };
const messageRetried: Shape = { conversationSlug: str, messageId: int, at: num };
const replyContinued: Shape = { ...replyBase, model: str, requestId: str, text: str, thinking: str };
const libraryLinkShape: Shape = { id: int, messageId: int, libraryId: int };
const conversationDuplicated: Shape = { sourceSlug: str, upToMessageId: int, conversation: isObj, messages: objects, libraryLinks: objects, at: num };
function checkDuplicated(p: unknown): string | null {
  const top = checkShape(p, conversationDuplicated, 'payload');
  if (top !== null) return top;
  const d = p as Record<string, unknown>;
  const c = checkShape(d.conversation, conversationShape, 'payload.conversation');
  if (c !== null) return c;
  const messages = d.messages as unknown[];
  for (let i = 0; i < messages.length; i++) {
    const m = checkShape(messages[i], messageV2Shape, `payload.messages[${i}]`);
    if (m !== null) return m;
  }
  const links = d.libraryLinks as unknown[];
  for (let i = 0; i < links.length; i++) {
    const l = checkShape(links[i], libraryLinkShape, `payload.libraryLinks[${i}]`);
    if (l !== null) return l;
  }
  return null;
}

// Media (src/projections/media.ts).
const imageRef: Shape = { fileId: int, thumbId: int, mimeType: str, width: int, height: int, bytes: int };
const imageRefs: Check = (v) => Array.isArray(v) && v.every((x) => checkShape(x, imageRef, '') === null);
const imageGenerated: Shape = { ...replyBase, images: imageRefs, splitImages: bool, taskId: nullable(str), cost: num, paymentSource: nullable(paymentSource), isNSFW: bool };
const imageAnswered: Shape = { ...replyBase, text: str, recommendedModel: nullable(str), recommendedModelName: nullable(str), isNSFW: bool, requiresExplicitMode: bool };
const imageFavourited: Shape = { fileId: int, favourite: bool, at: num };
const videoRequested: Shape = { ...replyBase, runId: str, model: str };
const videoStatusChanged: Shape = {
  ...replyBase, status: oneOf('processing', 'completed', 'error', 'cancelled'), videoUrl: nullable(str), videoFileId: nullable(int),
  error: nullable(str), cost: num, paymentSource: nullable(paymentSource),
};
/** A setting's value; null clears it (back to the model's default). */
const settingValue: Check = (v) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
const modelSettingsChanged: Shape = { modelId: str, settings: (v) => isObj(v) && Object.values(v).every(settingValue), at: num };
const mediaChecks = {
  'image.generated': (p: unknown) => checkShape(p, imageGenerated, 'payload'),
  'image.answered': (p: unknown) => checkShape(p, imageAnswered, 'payload'),
  'image.favourited': (p: unknown) => checkShape(p, imageFavourited, 'payload'),
  'video.requested': (p: unknown) => checkShape(p, videoRequested, 'payload'),
  'video.statusChanged': (p: unknown) => checkShape(p, videoStatusChanged, 'payload'),
  'modelSettings.changed': (p: unknown) => checkShape(p, modelSettingsChanged, 'payload'),
} as const;
// The scratchpad.
/** Types the scratchpad command makes; the log accepts any type name (adopted rows of the original app's). */
export const SCRATCHPAD_TYPES = ['note', 'message', 'code', 'output'] as const;
const scratchpadType: Check = (v) => typeof v === 'string' && v !== '';
const scratchpadEntryShape: Shape = { id: int, content: str, type: scratchpadType, timestamp: num, conversationSlug: str };
const scratchpadEdited: Shape = { id: int, conversationSlug: str, content: str, at: num };
const scratchpadDeleted: Shape = { id: int, conversationSlug: str, at: num };

// Fast paths: one boolean expression per type with direct property reads (monomorphic, no closures), run on every
// event of a replay. Only when one fails does the generic checkShape run, to name the offending field.
type R = Record<string, unknown>;
const S = (v: unknown) => typeof v === 'string';
const N = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const I = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
const B = (v: unknown) => typeof v === 'boolean';
const O = (v: unknown): v is R => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStatus = (v: unknown) => v === 'done' || v === 'pending' || v === 'streaming' || v === 'error';
const isRole = (v: unknown) => v === 'user' || v === 'assistant' || v === 'system' || v === 'tool';
const isSource = (v: unknown) => v === null || v === 'USD' || v === 'nano';
const replyOk = (p: R) => I(p.messageId) && S(p.conversationSlug) && N(p.at);

const paymentStarted: Shape = { id: str, ticker: str, amount: str, txId: str, createdAt: num, paymentLink: str, paymentNonce: optional(str), network: optional(str), usdEquivalent: optional(str), at: num };
const paymentSettled: Shape = { id: str, status: oneOf('completed', 'failed', 'expired'), at: num };

const fastPayload: { [K in EventType]: (p: unknown) => boolean } = {
  'conversation.created': (p) => {
    if (!O(p) || !O(p.conversation)) return false;
    const c = p.conversation;
    return I(c.id) && S(c.uuid) && S(c.slug) && S(c.name) && N(c.createdAt) && N(c.updatedAt) && S(c.latestMessage) && B(c.isMediaOnly);
  },
  'message.added': (p) => {
    if (!O(p) || !O(p.message)) return false;
    const m = p.message;
    return (
      I(m.id) && S(m.conversationSlug) && N(m.timestamp) && isRole(m.role) && (S(m.prompt) || prompt(m.prompt)) && S(m.model) &&
      isStatus(m.status) && (m.parentMessageId === null || I(m.parentMessageId)) && (m.alternativeGroup === null || S(m.alternativeGroup)) &&
      I(m.branchIndex) && B(m.isActiveBranch) && I(m.branchDepth) && N(m.updatedAt)
    );
  },
  'reply.started': (p) => O(p) && replyOk(p) && S(p.model) && S(p.requestId),
  'reply.checkpointed': (p) => O(p) && replyOk(p) && S(p.text) && S(p.thinking),
  'reply.completed': (p) =>
    O(p) && replyOk(p) && S(p.text) && S(p.thinking) && N(p.cost) && isSource(p.paymentSource) && (p.outputTokens === null || N(p.outputTokens)) &&
    (p.inputTokens === undefined || p.inputTokens === null || N(p.inputTokens)),
  'reply.failed': (p) =>
    O(p) && replyOk(p) && I(p.userMessageId) && S(p.error) && B(p.keepPartial) && S(p.text) && S(p.thinking) && N(p.cost) && isSource(p.paymentSource),
  'reply.interrupted': (p) => O(p) && replyOk(p) && S(p.reason),
  'conversation.renamed': (p) => O(p) && S(p.slug) && N(p.at) && S(p.name) && (p.source === 'user' || p.source === 'generated'),
  'conversation.deleted': (p) => O(p) && S(p.slug) && N(p.at),
  'conversation.restored': (p) => O(p) && S(p.slug) && N(p.at),
  'conversation.purged': (p) => O(p) && S(p.slug) && N(p.at),
  'conversation.pinned': (p) => O(p) && S(p.slug) && N(p.at),
  'conversation.unpinned': (p) => O(p) && S(p.slug) && N(p.at),
  'conversation.instructionsSet': (p) => O(p) && S(p.slug) && N(p.at) && S(p.instructions),
  'instruction.created': (p) => {
    if (!O(p) || !O(p.instruction)) return false;
    const i = p.instruction;
    return I(i.id) && S(i.name) && S(i.instructions) && N(i.createdAt) && N(i.updatedAt);
  },
  'instruction.updated': (p) => O(p) && I(p.id) && S(p.name) && S(p.instructions) && N(p.at),
  'instruction.deleted': (p) => O(p) && I(p.id) && N(p.at),
  'queue.messageAdded': (p) => O(p) && S(p.conversationSlug) && S(p.model) && Array.isArray(p.extraModels) && queuedWebSearch(p.webSearch) && N(p.at) && O(p.message) && checkShape(p.message, queuedMessageShape, '') === null,
  'queue.messageRemoved': (p) => O(p) && S(p.conversationSlug) && S(p.id) && (p.reason === 'removed' || p.reason === 'submitted') && N(p.at),
  'message.branched': (p) => O(p) && S(p.conversationSlug) && I(p.messageId) && S(p.alternativeGroup) && N(p.at),
  'branch.activated': (p) => O(p) && S(p.conversationSlug) && S(p.alternativeGroup) && I(p.messageId) && N(p.at),
  'message.deleted': (p) => checkShape(p, messageDeleted, 'payload') === null,
  'message.retried': (p) => O(p) && S(p.conversationSlug) && I(p.messageId) && N(p.at),
  'reply.continued': (p) => O(p) && replyOk(p) && S(p.model) && S(p.requestId) && S(p.text) && S(p.thinking),
  'conversation.duplicated': (p) => checkDuplicated(p) === null,
  'preferences.changed': (p) => O(p) && N(p.at) && checkPreferenceChanges(p.changes) === null,
  'image.generated': (p) => mediaChecks['image.generated'](p) === null,
  'image.answered': (p) => mediaChecks['image.answered'](p) === null,
  'image.favourited': (p) => mediaChecks['image.favourited'](p) === null,
  'video.requested': (p) => mediaChecks['video.requested'](p) === null,
  'video.statusChanged': (p) => mediaChecks['video.statusChanged'](p) === null,
  'modelSettings.changed': (p) => mediaChecks['modelSettings.changed'](p) === null,
  'payment.started': (p) => checkShape(p, paymentStarted, 'payload') === null,
  'payment.settled': (p) => checkShape(p, paymentSettled, 'payload') === null,
  ...LIBRARY_PAYLOADS.fast,
  'message.webSearched': (p) => checkWebSearched(p) === null,
  'scratchpad.entryAdded': (p) => O(p) && checkShape(p.entry, scratchpadEntryShape, '') === null,
  'scratchpad.entryEdited': (p) => checkShape(p, scratchpadEdited, 'payload') === null,
  'scratchpad.entryDeleted': (p) => checkShape(p, scratchpadDeleted, 'payload') === null,
  'speech.generated': (p) => checkSpeechGenerated(p) === null,
  'folder.created': (p) => accountPayloadChecks['folder.created'](p) === null,
  'folder.renamed': (p) => accountPayloadChecks['folder.renamed'](p) === null,
  'folder.deleted': (p) => accountPayloadChecks['folder.deleted'](p) === null,
  'conversation.movedToFolder': (p) => accountPayloadChecks['conversation.movedToFolder'](p) === null,
  'updates.read': (p) => accountPayloadChecks['updates.read'](p) === null,
};

const payloadShapes: { [K in EventType]: (p: unknown) => string | null } = {
  'conversation.created': (p) =>
    checkShape(p, conversationPayload, 'payload') ?? checkShape((p as Record<string, unknown>).conversation, conversationShape, 'payload.conversation'),
  'message.added': (p) =>
    checkShape(p, messagePayload, 'payload') ?? checkShape((p as Record<string, unknown>).message, messageV2Shape, 'payload.message'),
  'reply.started': (p) => checkShape(p, replyStarted, 'payload'),
  'reply.checkpointed': (p) => checkShape(p, replyCheckpointed, 'payload'),
  'reply.completed': (p) => checkShape(p, replyCompleted, 'payload'),
  'reply.failed': (p) => checkShape(p, replyFailed, 'payload'),
  'reply.interrupted': (p) => checkShape(p, replyInterrupted, 'payload'),
  'conversation.renamed': (p) => checkShape(p, conversationRenamed, 'payload'),
  'conversation.deleted': (p) => checkShape(p, slugAt, 'payload'),
  'conversation.restored': (p) => checkShape(p, slugAt, 'payload'),
  'conversation.purged': (p) => checkShape(p, slugAt, 'payload'),
  'conversation.pinned': (p) => checkShape(p, slugAt, 'payload'),
  'conversation.unpinned': (p) => checkShape(p, slugAt, 'payload'),
  'conversation.instructionsSet': (p) => checkShape(p, conversationInstructionsSet, 'payload'),
  'instruction.created': (p) =>
    checkShape(p, instructionPayload, 'payload') ?? checkShape((p as Record<string, unknown>).instruction, instructionShape, 'payload.instruction'),
  'instruction.updated': (p) => checkShape(p, instructionUpdated, 'payload'),
  'instruction.deleted': (p) => checkShape(p, instructionDeleted, 'payload'),
  'queue.messageAdded': (p) =>
    checkShape(p, queueAdded, 'payload') ?? checkShape((p as Record<string, unknown>).message, queuedMessageShape, 'payload.message'),
  'queue.messageRemoved': (p) => checkShape(p, queueRemoved, 'payload'),
  'message.branched': (p) => checkShape(p, messageBranched, 'payload'),
  'branch.activated': (p) => checkShape(p, branchActivated, 'payload'),
  'message.deleted': (p) => checkShape(p, messageDeleted, 'payload'),
  'message.retried': (p) => checkShape(p, messageRetried, 'payload'),
  'reply.continued': (p) => checkShape(p, replyContinued, 'payload'),
  'conversation.duplicated': checkDuplicated,
  'preferences.changed': (p) => {
    const top = checkShape(p, { changes: isObj, at: num }, 'payload');
    if (top !== null) return top;
    const bad = checkPreferenceChanges((p as Record<string, unknown>).changes);
    return bad === null ? null : `payload.changes: ${bad}`;
  },
  ...mediaChecks,
  'payment.started': (p) => checkShape(p, paymentStarted, 'payload'),
  'payment.settled': (p) => checkShape(p, paymentSettled, 'payload'),
  ...LIBRARY_PAYLOADS.shapes,
  'message.webSearched': checkWebSearched,
  'scratchpad.entryAdded': (p) =>
    checkShape(p, { entry: isObj }, 'payload') ?? checkShape((p as Record<string, unknown>).entry, scratchpadEntryShape, 'payload.entry'),
  'scratchpad.entryEdited': (p) => checkShape(p, scratchpadEdited, 'payload'),
  'scratchpad.entryDeleted': (p) => checkShape(p, scratchpadDeleted, 'payload'),
  'speech.generated': checkSpeechGenerated,
  'folder.created': accountPayloadChecks['folder.created'],
  'folder.renamed': accountPayloadChecks['folder.renamed'],
  'folder.deleted': accountPayloadChecks['folder.deleted'],
  'conversation.movedToFolder': accountPayloadChecks['conversation.movedToFolder'],
  'updates.read': accountPayloadChecks['updates.read'],
};

/** message.webSearched: the record and each of its sources. */
function checkWebSearched(p: unknown): string | null {
  const top = checkShape(p, { conversationSlug: str, messageId: int, webSearch: isObj, at: num }, 'payload');
  if (top !== null) return top;
  const w = (p as Record<string, unknown>).webSearch as Record<string, unknown>;
  const rec = checkShape(w, { depth: oneOf('standard', 'deep'), provider: str, sources: Array.isArray, cost: num, paymentSource, at: num }, 'payload.webSearch');
  if (rec !== null) return rec;
  const sources = w.sources as unknown[];
  for (let i = 0; i < sources.length; i++) {
    const bad = checkShape(sources[i], { title: str, url: str, snippet: str }, `payload.webSearch.sources[${i}]`);
    if (bad !== null) return bad;
  }
  return null;
}

/** speech.generated: the take, each chunk null or a file reference, failed chunk indexes within the count. */
function checkSpeechGenerated(p: unknown): string | null {
  const top = checkShape(p, { messageId: int, conversationSlug: str, audio: isObj, completes: (v) => typeof v === 'boolean', paymentSource: nullable(paymentSource), at: num }, 'payload');
  if (top !== null) return top;
  const a = (p as Record<string, unknown>).audio as Record<string, unknown>;
  const take = checkShape(a, { key: str, model: str, voice: str, speed: num, chunkCount: int, chunks: Array.isArray, failed: Array.isArray, cost: num }, 'payload.audio');
  if (take !== null) return take;
  const chunks = a.chunks as unknown[];
  const count = a.chunkCount as number;
  if (count < 1 || chunks.length !== count) return 'payload.audio.chunks must hold chunkCount entries';
  for (let i = 0; i < chunks.length; i++) {
    if (chunks[i] === null) continue;
    const bad = checkShape(chunks[i], { fileId: int, mimeType: str, bytes: int }, `payload.audio.chunks[${i}]`);
    if (bad !== null) return bad;
  }
  if (!(a.failed as unknown[]).every((i) => int(i) && (i as number) >= 0 && (i as number) < count)) return 'payload.audio.failed must list chunk indexes';
  return null;
}

export function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(CURRENT_VERSION, type);
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
  if (fastPayload[type](payload)) return null;
  return payloadShapes[type](payload) ?? `payload is not a valid '${type}'`;
}

export { checkShape, isObj };
