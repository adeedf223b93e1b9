/**
 * System instructions (spec 000 section 1): the built-in presets, the placeholders, and the one function every
 * request builder calls to get a conversation's system message.
 *
 * Built-in presets live in code, not in the `instructions` table: 'Standard' (id 0, always present, the default
 * formatting prompt) and 'Study Mode' (id -1). User presets are rows of the table (ids from the engine's
 * allocator, always positive), created, edited and deleted through events (src/worker/rooms/instructions/commands.ts).
 */
import type { ChatMessage } from '../../../protocol/api';
import type { ConversationRow, InstructionRow } from '../../../events/model';

/** Longest system prompt kept on a conversation or a preset (declared with the preferences, which keep one too). */
export { INSTRUCTIONS_MAX_CHARS } from '../../../protocol/preferences';

/** Spec 000 section 1: a built-in preset named 'Standard' with id 0 is always present. */
export const STANDARD_PRESET_ID = 0;
export const STANDARD_PRESET_NAME = 'Standard';
export const STUDY_MODE_PRESET_ID = -1;
export const STUDY_MODE_PRESET_NAME = 'Study Mode';

/** Placeholders replaced when instructions are sent (spec 000 section 1: the current date and the model name). */
export const DATE_PLACEHOLDER = '{{currentDate}}';
export const MODEL_PLACEHOLDER = '{{modelName}}';

/**
 * The default formatting system prompt (spec 000 section 1): Markdown only, $ delimiters for math, fenced code
 * blocks, no leading heading. The wording is ours; the four demands are the spec's.
 */
export const DEFAULT_FORMATTING_PROMPT = [
  `You are ${MODEL_PLACEHOLDER}, a helpful assistant. Today's date is ${DATE_PLACEHOLDER}.`,
  'Format every answer in Markdown only (no HTML).',
  'Write mathematics between $ delimiters: $...$ inline and $$...$$ for display equations.',
  'Put code in fenced code blocks with the language named after the opening fence.',
  'Do not begin an answer with a heading.',
].join('\n');

/** The Study Mode tutor prompt (spec 000 section 1): guiding questions, hints and quizzes. Wording ours. */
export const STUDY_MODE_PROMPT = [
  `You are ${MODEL_PLACEHOLDER}, a patient tutor. Today's date is ${DATE_PLACEHOLDER}.`,
  'Help the learner reach the answer themselves rather than giving it away.',
  'Ask guiding questions one at a time, building on what the learner already knows.',
  'When the learner is stuck, offer a hint that points to the next step, not the full solution.',
  'After a concept is understood, check it with a short quiz of one to three questions, then give feedback.',
  'Format in Markdown, with $ delimiters for mathematics and fenced code blocks for code.',
].join('\n');

export const BUILT_IN_PRESETS: readonly InstructionRow[] = [
  { id: STANDARD_PRESET_ID, name: STANDARD_PRESET_NAME, instructions: DEFAULT_FORMATTING_PROMPT, createdAt: 0, updatedAt: 0 },
  { id: STUDY_MODE_PRESET_ID, name: STUDY_MODE_PRESET_NAME, instructions: STUDY_MODE_PROMPT, createdAt: 0, updatedAt: 0 },
];

export function isBuiltInPreset(id: number): boolean {
  return id === STANDARD_PRESET_ID || id === STUDY_MODE_PRESET_ID;
}

/** Every preset: the built-ins and the user's, sorted by name (spec 000 section 1), ties by id. */
export function presetList(userPresets: readonly InstructionRow[]): InstructionRow[] {
  return [...BUILT_IN_PRESETS, ...userPresets.filter((p) => !isBuiltInPreset(p.id))].sort(
    (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id - b.id,
  );
}

/** The current date as sent in place of the date placeholder: ISO calendar date, e.g. 2026-11-23. */
export function formatPromptDate(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** Instructions with the placeholders filled in. */
export function fillPlaceholders(text: string, modelName: string, now: number): string {
  return text.split(DATE_PLACEHOLDER).join(formatPromptDate(now)).split(MODEL_PLACEHOLDER).join(modelName);
}

/**
 * The system message to send first in a request for `conversation` to the model named `modelName`: the
 * conversation's own instructions when it has any, otherwise the default formatting prompt ('Standard'),
 * with the placeholders replaced. `now` is the send time (the date placeholder's value).
 */
export function systemMessageFor(
  conversation: Pick<ConversationRow, 'instructions'> | null | undefined,
  modelName: string,
  now: number,
): ChatMessage {
  const own = conversation?.instructions?.trim() ?? '';
  const text = own === '' ? DEFAULT_FORMATTING_PROMPT : own;
  return { role: 'system', content: fillPlaceholders(text, modelName, now) };
}
