/**
 * The built-in offline text engine. It is NOT a language model and loads no weights: a small deterministic
 * generator that writes a useful Markdown reply about the prompt (a restatement, figures as a list, a fenced code
 * block, $math$ when the prompt is about maths, arithmetic it can evaluate) and streams it token by token with a
 * small delay, with thinking text when the prompt asks to think or reason. The same prompt always gives the same
 * reply: no clock, no randomness, no network.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatMessage, ModelInfo } from '../../protocol/api';
import type { OpenStreamResult, ProviderChatRequest, ProviderEvent, TextProvider } from './types';
import { OFFLINE_ANALYSIS_CHARS, promptFacts, type PromptFacts } from '../body/chat-payload';

export const OFFLINE_PROVIDER_ID = 'offline';
export const OFFLINE_MODEL_ID = 'parley-offline';
export const OFFLINE_MODEL_NAME = 'Parley Offline (built-in, no AI)';

export const OFFLINE_MODEL: ModelInfo = {
  id: OFFLINE_MODEL_ID,
  name: OFFLINE_MODEL_NAME,
  modality: 'text',
  provider: OFFLINE_PROVIDER_ID,
  pricing: { input: '0', output: '0' },
  capabilities: ['chat', 'streaming', 'thinking', 'markdown', 'math'],
  free: true,
  offline: true,
  description:
    'Built into Parley. Not an AI model: a deterministic local text generator that describes your message. ' +
    'Works with no provider key and no network.',
};

// The prompt facts the engine reads and the token estimate live with the chat payload (built once per request,
// on or off the event loop); re-exported here for the engine's callers.
export { estimateInputTokens, IMAGE_TOKENS, imageCount, messageText, OFFLINE_ANALYSIS_CHARS } from '../body/chat-payload';

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

// ---------------------------------------------------------------------------------------------------------------
// Arithmetic: a tiny recursive-descent evaluator for + - * / ^ and parentheses (never eval).

type Tok = { kind: 'num'; value: number } | { kind: 'op'; value: string };

function lex(src: string): Tok[] | null {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? '';
    if (c === ' ') {
      i++;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      let j = i;
      while (j < src.length && /[0-9.]/.test(src[j] ?? '')) j++;
      const v = Number(src.slice(i, j));
      if (!Number.isFinite(v)) return null;
      out.push({ kind: 'num', value: v });
      i = j;
      continue;
    }
    const op = c === '×' ? '*' : c === '÷' ? '/' : c;
    if (!'+-*/^()'.includes(op)) return null;
    out.push({ kind: 'op', value: op });
    i++;
  }
  return out;
}

export function evaluateArithmetic(src: string): number | null {
  const toks = lex(src);
  if (!toks || toks.length === 0) return null;
  let pos = 0;
  const peek = (): Tok | undefined => toks[pos];
  const isOp = (v: string): boolean => {
    const t = peek();
    return t !== undefined && t.kind === 'op' && t.value === v;
  };
  const primary = (): number => {
    const t = peek();
    if (!t) throw new Error('end');
    if (t.kind === 'num') {
      pos++;
      return t.value;
    }
    if (t.value === '(') {
      pos++;
      const v = sum();
      if (!isOp(')')) throw new Error('paren');
      pos++;
      return v;
    }
    if (t.value === '-') {
      pos++;
      return -power();
    }
    throw new Error('unexpected');
  };
  const power = (): number => {
    const base = primary();
    if (isOp('^')) {
      pos++;
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let v = power();
    while (isOp('*') || isOp('/')) {
      const op = (peek() as Tok).value;
      pos++;
      const r = power();
      v = op === '*' ? v * r : v / r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (isOp('+') || isOp('-')) {
      const op = (peek() as Tok).value;
      pos++;
      const r = product();
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  try {
    const v = sum();
    return pos === toks.length ? v : null;
  } catch {
    return null;
  }
}

function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return 'undefined (division by zero)';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return String(Number(v.toPrecision(10)));
}

/** Longest arithmetic candidate evaluated: longer runs (huge numbers, deep brackets) are not arithmetic anyone asked for. */
export const MAX_EXPRESSION_CHARS = 200;

/** Characters an arithmetic run is made of: digits, whitespace, . + - * / ^ ( ) × ÷ (by code: no per-character strings). */
function isExprCode(c: number): boolean {
  return (
    (c >= 48 && c <= 57) || c === 32 || (c >= 9 && c <= 13) || c === 46 || c === 43 || c === 45 || c === 42 || c === 47 ||
    c === 94 || c === 40 || c === 41 || c === 0xd7 || c === 0xf7
  );
}
const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Arithmetic candidates: maximal runs of expression characters, each trimmed to start at a digit or '(' and end
 * at a digit or ')'. One pass over the text (the regex it replaces backtracked over every start of a long run:
 * quadratic, 19 s for 160,000 '('), and a candidate is evaluated only when short enough to be real arithmetic.
 */
function findExpressions(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n && out.length < 3) {
    if (!isExprCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    let first = -1;
    let last = -1;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (!isExprCode(c)) break;
      if (first === -1 && (c === 40 || isDigitCode(c))) first = j;
      if (c === 41 || isDigitCode(c)) last = j;
    }
    if (first !== -1 && last > first && last - first < MAX_EXPRESSION_CHARS) {
      const candidate = text.slice(first, last + 1).trim();
      if (/\d\s*[-+*/^×÷]\s*[(\d-]/.test(candidate) && evaluateArithmetic(candidate) !== null) out.push(candidate);
    }
    i = j;
  }
  return out;
}

const isSentenceEnd = (c: number): boolean => c === 46 || c === 33 || c === 63; // . ! ?

/** Sentence ends: runs of '.', '!' or '?' followed by whitespace or the end, counted in one pass. */
function countSentenceEnds(text: string): number {
  let count = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (!isSentenceEnd(text.charCodeAt(i))) continue;
    while (i + 1 < n && isSentenceEnd(text.charCodeAt(i + 1))) i++;
    if (i + 1 === n || /\s/.test(text[i + 1] ?? '')) count++;
  }
  return count;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** A letter or digit at index i: ASCII by code, the rest by the Unicode classes. */
function isWordCharAt(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return LETTER_OR_DIGIT.test(w[i] ?? '');
}

/** A word without the punctuation around it, found by index (an anchored `[^…]+$` regex is quadratic on a long word). */
function bareWord(w: string): string {
  let a = 0;
  let b = w.length;
  while (a < b && !isWordCharAt(w, a)) a++;
  while (b > a && !isWordCharAt(w, b - 1)) b--;
  return w.slice(a, b).toLowerCase();
}

function latex(expr: string): string {
  return expr.replace(/\*/g, ' \\times ').replace(/×/g, ' \\times ').replace(/÷/g, ' \\div ').replace(/\//g, ' \\div ').replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------------------------

const STOP = new Set(
  'the a an and or but if then else of to in on at for with by from as is are was were be been it its this that these those i you he she we they me my your our their what which who whom how why when where can could would should will shall do does did not no yes so than too very just about into over under please'.split(' '),
);

const CODE_LANGS: Record<string, string> = {
  python: 'python', py: 'python', typescript: 'ts', ts: 'ts', javascript: 'js', js: 'js', node: 'js', rust: 'rust',
  go: 'go', golang: 'go', bash: 'bash', shell: 'bash', sql: 'sql',
};

function codeSample(lang: string, sample: string, words: number): string {
  const s = JSON.stringify(sample);
  switch (lang) {
    case 'python':
      return `def count_words(text: str) -> int:\n    """Counts the words of a text, as above for your message."""\n    return len(text.split())\n\nprint(count_words(${s}))  # ${words}`;
    case 'js':
      return `// Counts the words of a text, as above for your message.\nfunction countWords(text) {\n  return text.trim().split(/\\s+/).filter(Boolean).length;\n}\n\nconsole.log(countWords(${s})); // ${words}`;
    case 'rust':
      return `/// Counts the words of a text, as above for your message.\nfn count_words(text: &str) -> usize {\n    text.split_whitespace().count()\n}\n\nfn main() {\n    println!("{}", count_words(${s})); // ${words}\n}`;
    case 'go':
      return `package main\n\nimport (\n\t"fmt"\n\t"strings"\n)\n\n// countWords counts the words of a text, as above for your message.\nfunc countWords(text string) int {\n\treturn len(strings.Fields(text))\n}\n\nfunc main() {\n\tfmt.Println(countWords(${s})) // ${words}\n}`;
    case 'bash':
      return `# Counts the words of a text, as above for your message.\necho ${JSON.stringify(sample.replace(/[`$\\]/g, ''))} | wc -w   # ${words}`;
    case 'sql':
      return `-- Counts the words of a text, as above for your message (PostgreSQL).\nSELECT array_length(regexp_split_to_array(trim(${`'${sample.replace(/'/g, "''")}'`}), '\\s+'), 1) AS words; -- ${words}`;
    default:
      return `// Counts the words of a text, as above for your message.\nexport function countWords(text: string): number {\n  return text.trim().split(/\\s+/).filter(Boolean).length;\n}\n\ncountWords(${s}); // ${words}`;
  }
}

export interface OfflineReply {
  thinking: string | null;
  text: string;
}

/** The whole reply for a conversation, computed up front (it is cheap and deterministic). */
export function composeOfflineReply(messages: readonly ChatMessage[]): OfflineReply {
  return composeFromFacts(promptFacts(messages));
}

/**
 * The reply from what the engine reads of a conversation (body/chat-payload.ts): only the first
 * OFFLINE_ANALYSIS_CHARS characters of the last user turn are analysed (a cap, docs/gateway.md
 * "Chat"): every scan below is linear, and the cap keeps one huge prompt from holding the event loop.
 */
export function composeFromFacts(facts: PromptFacts): OfflineReply {
  const prompt = facts.text;
  const images = facts.images;
  const words = prompt.split(/\s+/).filter((w) => w.length > 0);
  const sentences = prompt.length === 0 ? 0 : Math.max(1, countSentenceEnds(prompt));
  const lines = prompt.length === 0 ? 0 : prompt.split(/\r?\n/).length;
  const questions = prompt.split('?').length - 1;
  const counts = new Map<string, number>();
  for (const w of words) {
    const k = bareWord(w);
    if (k.length < 3 || STOP.has(k) || !/\p{L}/u.test(k)) continue;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
  const lower = prompt.toLowerCase();
  const expressions = findExpressions(prompt);
  const mathy = expressions.length > 0 || /\b(math|maths|mathematics|equation|formula|calculate|compute|solve|integral|derivative|algebra|geometry|theorem|proof|sum)\b/.test(lower);
  const langWord = /\b(python|py|typescript|ts|javascript|js|node|rust|golang|go|bash|shell|sql)\b/.exec(lower)?.[1];
  const wantsCode = langWord !== undefined || /\b(code|function|program|script|snippet|implement)\b/.test(lower);
  const lang = wantsCode ? (langWord ? (CODE_LANGS[langWord] ?? 'ts') : 'ts') : 'json';
  const wantsThinking = /\b(think|thinking|reason|reasoning|step[- ]by[- ]step|ponder|deliberate)\b/.test(lower);
  const thanks = prompt.length > 0 && prompt.length <= 200 && /\b(thanks|thank you|thx)\b/.test(lower);
  const turn = facts.userTurns;

  const out: string[] = [];
  if (thanks) out.push("You're welcome!", '');
  out.push(
    prompt.length > 0
      ? `**Parley Offline** is the built-in text engine: it runs no AI model, but here is what it can tell about your message${turn > 1 ? ` (your message ${turn} in this conversation)` : ''}.`
      : `**Parley Offline** is the built-in text engine: it runs no AI model. Your message had no text${images > 0 ? `, only ${images === 1 ? 'an image' : `${images} images`}` : ''}.`,
  );
  if (prompt.length > 0) {
    const shown = prompt.length > 280 ? `${prompt.slice(0, 280)}…` : prompt;
    out.push('', ...shown.split(/\r?\n/).map((l) => `> ${l}`));
  }
  out.push('', '### At a glance', '');
  out.push(`- **Words:** ${words.length}`);
  if (facts.length > prompt.length) out.push(`- **Analysed:** the first ${OFFLINE_ANALYSIS_CHARS} of ${facts.length} characters`);
  out.push(`- **Characters:** ${prompt.length} (${prompt.replace(/\s/g, '').length} without spaces)`);
  out.push(`- **Sentences:** ${sentences}`);
  out.push(`- **Lines:** ${lines}`);
  if (questions > 0) out.push(`- **Questions:** ${questions}`);
  if (images > 0) out.push(`- **Images attached:** ${images}`);
  if (top.length > 0) out.push(`- **Most frequent words:** ${top.map(([w, n]) => `\`${w}\` ×${n}`).join(', ')}`);

  if (mathy) {
    out.push('', '### Math', '');
    if (expressions.length > 0) {
      out.push('The arithmetic in your message, evaluated:', '');
      for (const e of expressions) out.push(`- $${latex(e)} = ${formatNumber(evaluateArithmetic(e) ?? Number.NaN)}$`);
      out.push('');
    }
    const n = words.length;
    out.push(`Your message has $n = ${n}$ words; the sum of the whole numbers from 1 to $n$ is:`, '', '$$', `\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2} = ${(n * (n + 1)) / 2} \\quad \\text{for } n = ${n}`, '$$');
  }

  out.push('', wantsCode ? '### Code' : '### The same figures as JSON', '');
  const fence = '```';
  if (wantsCode) {
    // A sample of the prompt cut at a word boundary, and the word count of that sample.
    const sample = prompt.length > 80 ? prompt.slice(0, 80).replace(/\s+\S*$/, '') : prompt;
    const sampleWords = sample.split(/\s+/).filter((w) => w.length > 0).length;
    out.push(`${fence}${lang}`, codeSample(lang, sample.replace(/\s+/g, ' '), sampleWords), fence);
  } else {
    const stats = { words: words.length, characters: prompt.length, sentences, lines, questions, images, topWords: Object.fromEntries(top) };
    out.push(`${fence}json`, JSON.stringify(stats, null, 2), fence);
  }
  out.push(
    '',
    '---',
    '',
    '*To chat with a real model, configure an OpenAI-compatible provider (for example a local Ollama) with `PARLEY_UPSTREAM_URL` and restart the gateway.*',
  );
  const text = out.join('\n');

  let thinking: string | null = null;
  if (wantsThinking) {
    thinking = [
      'You asked me to think it through, so here are the steps.',
      `1. Read the message: ${words.length} words in ${sentences} sentence${sentences === 1 ? '' : 's'}.`,
      `2. Look for arithmetic: ${expressions.length > 0 ? expressions.map((e) => `${e} = ${formatNumber(evaluateArithmetic(e) ?? Number.NaN)}`).join('; ') : 'none found'}.`,
      `3. Look for a code request: ${wantsCode ? `yes, in ${lang}` : 'no'}.`,
      '4. Write the answer in Markdown: a quote, a list of figures and a code block.',
    ].join('\n');
  }
  return { thinking, text };
}

/** Splits text into stream tokens: each word with the whitespace before it. Concatenation gives the text back. */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

export interface OfflineProviderOptions {
  /** Delay between tokens (PARLEY_OFFLINE_TOKEN_DELAY_MS). */
  tokenDelayMs: number;
}

export class OfflineProvider implements TextProvider {
  readonly id = OFFLINE_PROVIDER_ID;
  constructor(private readonly options: OfflineProviderOptions) {}

  async open(req: ProviderChatRequest, signal: AbortSignal): Promise<OpenStreamResult> {
    if (signal.aborted) throw signal.reason;
    return { ok: true, events: this.events(req, signal) };
  }

  private async *events(req: ProviderChatRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const reply = composeFromFacts(req.conversation.prompt);
    const delay = this.options.tokenDelayMs;
    yield { type: 'model', model: OFFLINE_MODEL_ID };
    let sent = 0;
    const maxChars = req.maxTokens !== undefined ? req.maxTokens * 4 : Number.POSITIVE_INFINITY;
    const pace = async (): Promise<void> => {
      if (delay > 0) await sleep(delay, undefined, { signal });
      else if (signal.aborted) throw signal.reason;
    };
    if (reply.thinking !== null) {
      for (const t of tokenize(reply.thinking)) {
        await pace();
        yield { type: 'reasoning', text: t };
      }
    }
    for (const t of tokenize(reply.text)) {
      if (sent + t.length > maxChars) break;
      await pace();
      sent += t.length;
      yield { type: 'content', text: t };
    }
    const outputChars = sent + (reply.thinking?.length ?? 0);
    yield { type: 'usage', inputTokens: req.conversation.inputTokens, outputTokens: Math.ceil(outputChars / 4) };
  }
}
