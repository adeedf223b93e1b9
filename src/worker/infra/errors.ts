/**
 * The model-request error catalogue of spec 000 section 8 as ONE pure classifier (DESIGN.md rule 8), checked in
 * the spec's order. Outcomes (title, text, tone, duration, action) are listed in docs/errors.md; keep both in step.
 */
import { CONTEXT_TOO_LONG } from '../../protocol/api';
import { formatUsd, formatXno } from '../../protocol/money-format';
import type { Notice } from '../../protocol/engine';
import { DURATION, MODEL_ERROR as M, STREAM_ERROR } from '../../shared/messages';

export interface ModelErrorInput {
  /** HTTP status of the failed call, when there was an answer. */
  status?: number;
  /** Error code (gateway `error` field or a provider code). Compared case-sensitively, as the spec's codes are. */
  code?: string;
  /** Error message (thrown error's message or the body's). */
  message?: string;
  /** Parsed (or raw JSON text) error body: `{ error, message, requiredBalance }` or `{ error: { code, message } }`. */
  body?: unknown;
  /**
   * The currency the user pays in (spec 001: USD when the USD balance is above 0, else XNO): a 402 shows the
   * request's required amount in it (the body's requiredUsd or requiredBalance). Default XNO.
   */
  currency?: 'USD' | 'XNO';
}

export type ModelErrorNotice = Omit<Notice, 'id'>;

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonBlank(v: unknown): v is string {
  return typeof v === 'string' && v.trim().length > 0;
}

function bodyRecord(body: unknown): Rec | null {
  if (isRec(body)) return body;
  if (typeof body === 'string') {
    const t = body.trim();
    if (t.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(t);
        return isRec(parsed) ? parsed : null;
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** Every code the input carries: input.code, body.error (string), body.code, body.error.code, body.error.type. */
function collectCodes(input: ModelErrorInput, body: Rec | null): string[] {
  const out: string[] = [];
  if (nonBlank(input.code)) out.push(input.code.trim());
  if (body) {
    if (nonBlank(body.error)) out.push(body.error.trim());
    if (nonBlank(body.code)) out.push(body.code.trim());
    if (isRec(body.error)) {
      if (nonBlank(body.error.code)) out.push(body.error.code.trim());
      if (nonBlank(body.error.type)) out.push(body.error.type.trim());
    }
  }
  return out;
}

/** Every message the input carries, first the most specific: input.message, body.message, body.error.message. */
function collectMessages(input: ModelErrorInput, body: Rec | null): string[] {
  const out: string[] = [];
  if (nonBlank(input.message)) out.push(input.message.trim());
  if (body) {
    if (nonBlank(body.message)) out.push(body.message.trim());
    if (isRec(body.error) && nonBlank(body.error.message)) out.push(body.error.message.trim());
  }
  return out;
}

const LOCAL_DB = /local\s*database|indexed\s*db|dexie/i;
const SAFETY_BLOCK = /safety[\s_-]*(?:block|filter|system)|block\w*\s+(?:\w+\s+){0,3}safety/i;
const BANNED_WORD = /banned[\s_-]*(?:words?|terms?|phrases?|keywords?|content|prompt)/i;
const VIDEO_FLAGGED = ['content flagged as inappropriate', 'nsfw content detected', 'inappropriate content'];
const CONTEXT_MEMORY = /context[\s_-]*memory|index(?:ing|ed|es)?\b/i;
const EXCEEDS_MAX = 'which exceeds the max limit of';

/** Floor a decimal amount to 6 decimals (spec 000 section 9) and drop trailing zeros; null when not a number. */
export function formatAmount(value: unknown): string | null {
  let s: string;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) s = value.toFixed(12);
  else if (typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value)) s = value.trim();
  else return null;
  const [whole = '0', frac = ''] = s.split('.');
  const w = whole.replace(/^0+(?=\d)/, '');
  const f = frac.slice(0, 6).replace(/0+$/, '');
  if (f === '' && /^0*$/.test(w) && /[1-9]/.test(frac)) return '0.000001'; // below the display unit: show the unit
  return f === '' ? w : `${w}.${f}`;
}

/** Parse "N tokens" (with thousands separators, or "12.5k tokens") out of a message. */
function parseTokenCount(text: string): string | null {
  const m = /(\d[\d,]*(?:\.\d+)?)\s*(k)?\s*tokens?\b/i.exec(text);
  if (!m || m[1] === undefined) return null;
  const n = Number(m[1].replace(/,/g, '')) * (m[2] ? 1000 : 1);
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : null;
}

/** Parse an estimated duration ("estimated time: 45 seconds", "about 2 min", "~30s") out of a message. */
function parseEstimatedTime(text: string): string | null {
  const unit = String.raw`(\d+(?:\.\d+)?)\s*(hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b`;
  const m =
    new RegExp(String.raw`(?:estimat\w*|approx\w*|about|around|~|eta)[^\d]{0,30}` + unit, 'i').exec(text) ??
    new RegExp(unit, 'i').exec(text);
  if (!m || m[1] === undefined || m[2] === undefined) return null;
  const n = Number(m[1]);
  const u = m[2].toLowerCase();
  const word = u.startsWith('h') ? 'hour' : u.startsWith('m') ? 'minute' : 'second';
  return `${m[1]} ${word}${n === 1 ? '' : 's'}`;
}

function contextMemoryText(text: string): string {
  const time = parseEstimatedTime(text);
  const tokens = parseTokenCount(text);
  const parts: string[] = [];
  if (tokens !== null && time !== null) parts.push(`Indexing ${tokens} tokens; estimated time ${time}.`);
  else if (tokens !== null) parts.push(`Indexing ${tokens} tokens.`);
  else if (time !== null) parts.push(`Estimated time ${time}.`);
  parts.push(M.contextMemoryResend);
  return parts.join(' ');
}

function tooManyTokensText(text: string): string {
  const m = /(\d[\d,]*)\s*(?:input\s+)?(?:tokens?)?\s*,?\s*which exceeds the max limit of\s*(\d[\d,]*)/i.exec(text);
  if (m && m[1] !== undefined && m[2] !== undefined) {
    const used = Number(m[1].replace(/,/g, '')).toLocaleString('en-US');
    const max = Number(m[2].replace(/,/g, '')).toLocaleString('en-US');
    return `Your input is ${used} tokens, which exceeds this model's limit of ${max}. ${M.tooManyTokensGuidance}`;
  }
  return M.tooManyTokensGuidance;
}

const notice = (
  title: string,
  text: string,
  tone: Notice['tone'],
  durationMs: number,
  action?: Notice['action'],
): ModelErrorNotice => (action ? { title, text, tone, durationMs, action } : { title, text, tone, durationMs });

const contentFlagged = (): ModelErrorNotice => notice(M.contentFlaggedTitle, M.contentFlaggedText, 'orange', DURATION.medium);
const videoFlagged = (): ModelErrorNotice =>
  notice(M.flaggedInappropriateTitle, M.flaggedInappropriateText, 'orange', DURATION.sticky);

/**
 * Classify a failed model request into the notice to show (spec 000 section 8, in its order):
 * six message/code rules first, then by HTTP status.
 */
export function classifyModelError(input: ModelErrorInput): ModelErrorNotice {
  const body = bodyRecord(input.body);
  const codes = collectCodes(input, body);
  const messages = collectMessages(input, body);
  const all = messages.join('\n');
  const lower = all.toLowerCase();
  const first = messages[0] ?? '';
  const hasCode = (c: string): boolean => codes.includes(c);

  // 1. Local database (IndexedDB / Dexie) trouble.
  if (LOCAL_DB.test(all)) {
    return notice(M.localStorageTitle, M.localStorageText, 'red', DURATION.long, { label: M.reloadPage, kind: 'reload' });
  }
  // 2. Image blocked as NSFW by the image provider.
  if (hasCode('REPLICATE_NSFW_ERROR')) return contentFlagged();
  // 3. Content policy: banned content, or (otherwise) the video flagged as inappropriate.
  const banned = hasCode('BANNED_CONTENT') || BANNED_WORD.test(all);
  if (banned) return notice(M.contentNotAllowedTitle, M.contentNotAllowedText, 'orange', DURATION.sticky);
  if (hasCode('CONTENT_POLICY_VIOLATION') || SAFETY_BLOCK.test(all)) return videoFlagged();
  // 4. Flagged-content wording.
  if (VIDEO_FLAGGED.some((w) => lower.includes(w))) return videoFlagged();
  // 5. Context memory still indexing the conversation (the gateway's CONTEXT_TOO_LONG is a provider's 413).
  if (input.status === 413 && (hasCode(CONTEXT_TOO_LONG) || CONTEXT_MEMORY.test(all))) {
    return notice(M.contextMemoryTitle, contextMemoryText(all), 'blue', DURATION.long);
  }
  // 6. Input longer than the model's limit.
  if (lower.includes(EXCEEDS_MAX)) {
    return notice(M.tooManyTokensTitle, tooManyTokensText(all), 'red', DURATION.medium);
  }

  switch (input.status) {
    case 400: {
      if (/nsfw/i.test(all)) return contentFlagged();
      if (hasCode('region_unavailable') || all.includes('region_unavailable')) {
        return notice(M.regionTitle, M.regionText, 'red', DURATION.medium);
      }
      if (hasCode('content_policy_violation') || all.includes('content_policy_violation')) {
        return notice(M.promptRejectedTitle, M.promptRejectedText, 'orange', DURATION.medium);
      }
      return notice(M.errorOccurredTitle, first || M.unknownError, 'red', DURATION.medium);
    }
    case 402: {
      // Spec 000 section 6: flux-schnell's free uses of the day are spent: the gateway's message, and the deposit modal opens.
      if (hasCode('FREE_LIMIT_REACHED')) return notice(M.freeImagesUsedTitle, first || M.insufficientBalanceText, 'orange', DURATION.sticky, { label: M.deposit, kind: 'depositNow' });
      // The gateway's amount for this request (its hold), in the currency the user reads, rounded up (what they must have).
      const usd = input.currency === 'USD' ? formatAmount(body?.requiredUsd) : null;
      const nano = formatAmount(body?.requiredBalance);
      const required = usd !== null ? formatUsd(usd, 'ceil') : nano !== null ? formatXno(nano) : null;
      const text = required === null ? M.insufficientBalanceText : `This request needs a balance of ${required}. ${M.holdExplained} ${M.insufficientBalanceText}`;
      return notice(M.insufficientBalanceTitle, text, 'red', DURATION.long, { label: M.goToWallet, kind: 'deposit' });
    }
    case 403:
      return notice(M.forbiddenTitle, first || M.tryAgainText, 'red', DURATION.short);
    case 429:
      return notice(M.rateLimitedTitle, M.tryAgainText, 'orange', DURATION.short);
    case 503:
      return notice(M.unavailableTitle, M.tryAgainText, 'orange', DURATION.short);
    default:
      return notice(M.sendErrorTitle, first || M.unknownError, 'red', DURATION.medium);
  }
}

/**
 * Text of a stream that failed to start: the server's `error.message`, its `message`, or 'Failed to start stream'
 * ('Failed to start multi-model stream' with `multi`). A missing or empty body is a failure too (fallback text).
 */
export function streamFailureText(body: unknown, options: { multi?: boolean } = {}): string {
  const rec = bodyRecord(body);
  if (rec) {
    if (isRec(rec.error) && nonBlank(rec.error.message)) return rec.error.message.trim();
    if (nonBlank(rec.message)) return rec.message.trim();
  }
  return options.multi ? STREAM_ERROR.failedToStartMulti : STREAM_ERROR.failedToStart;
}

/** Error text stored on the user message of a failed chat (falls back to the spec's generic text). */
export function failedChatText(error?: unknown): string {
  if (nonBlank(error)) return error.trim();
  if (isRec(error) || error instanceof Error) {
    const msg = (error as { message?: unknown }).message;
    if (nonBlank(msg)) return msg.trim();
  }
  return STREAM_ERROR.failedChat;
}
