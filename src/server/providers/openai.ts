/**
 * OpenAI-compatible chat-completions provider (OpenAI, OpenRouter, Ollama, vLLM, LM Studio, ...).
 * POST {base}/chat/completions with stream: true and stream_options.include_usage; the SSE reply is parsed as it
 * arrives and turned into provider events with no buffering beyond the current network chunk.
 */
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { HttpClient, readText, type StreamingResponse } from './http-client';
import { SseParser, SseTooLargeError, type SseEvent } from './sse';
import { estimateOutputTokens, IMAGE_OUTPUT_TOKENS } from './output-budget';
import { samplingJson } from './sampling';
import { UpstreamStreamError, type BufferedEvents, type OpenStreamResult, type ProviderChatRequest, type ProviderEvent, type TextProvider } from './types';

export interface OpenAiProviderOptions {
  id: string;
  baseUrl: string;
  apiKey: string | null;
}

const ERROR_BODY_LIMIT = 64 * 1024;

/** Normalises an upstream error body ({error:{message,code,type}}, {error:"..."}, {message}, text) to {error, message}. */
export function upstreamError(status: number, bodyText: string): { error: string; message: string } {
  let code: string | null = null;
  let message: string | null = null;
  try {
    const body = JSON.parse(bodyText) as unknown;
    if (body && typeof body === 'object') {
      const b = body as Record<string, unknown>;
      const e = b.error;
      if (e && typeof e === 'object') {
        const eo = e as Record<string, unknown>;
        if (typeof eo.message === 'string') message = eo.message;
        if (typeof eo.code === 'string' && eo.code) code = eo.code;
        else if (typeof eo.type === 'string' && eo.type) code = eo.type;
      } else if (typeof e === 'string') {
        if (typeof b.message === 'string') {
          code = e;
          message = b.message;
        } else message = e;
      }
      if (message === null && typeof b.message === 'string') message = b.message;
      if (message === null && typeof b.detail === 'string') message = b.detail;
      if (code === null && typeof b.code === 'string' && b.code) code = b.code;
    }
  } catch {
    const text = bodyText.trim();
    if (text) message = text.slice(0, 500);
  }
  return {
    error: code ?? `UPSTREAM_${status}`,
    message: message ?? `The model provider answered with HTTP ${status}`,
  };
}

async function readLimited(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  return text.slice(0, ERROR_BODY_LIMIT);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tokenCount(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
}

/** One JSON line of the Gemini image model's stream (spec 000 section 7), as the engine reads it. */
function line(part: { type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string }): ProviderEvent {
  // A line is relayed whole or not at all; an image counts as the tokens an image costs, not as its base64 length.
  return { type: 'content', text: `${JSON.stringify(part)}\n`, wholeTokens: part.type === 'image' ? IMAGE_OUTPUT_TOKENS : estimateOutputTokens(part.text) };
}

/**
 * The images of a delta (`delta.images: [{type: 'image_url', image_url: {url: 'data:image/png;base64,...'}}]`, as
 * OpenRouter streams them) as image lines. Only data URLs: a link would have the gateway fetch an address a provider
 * chose, so it is named in a text line instead.
 */
function imageLines(images: unknown, out: ProviderEvent[]): void {
  if (!Array.isArray(images)) return;
  for (const image of images) {
    const ref = isRecord(image) ? image.image_url : undefined;
    const url = isRecord(ref) && typeof ref.url === 'string' ? ref.url : typeof ref === 'string' ? ref : null;
    if (url === null) continue;
    const comma = url.indexOf(',');
    const head = comma === -1 ? '' : url.slice(0, comma);
    if (url.startsWith('data:') && head.endsWith(';base64')) {
      out.push(line({ type: 'image', mimeType: head.slice(5, -7), data: url.slice(comma + 1) }));
    } else {
      out.push(line({ type: 'text', text: `\n\n(The model returned an image as a link, which Parley does not fetch: ${url.slice(0, 500)})\n\n` }));
    }
  }
}

/**
 * The text of a `delta.content` given as an array of parts (Mistral's reasoning models: `{type: 'text', text}` and
 * `{type: 'thinking', thinking: [{type: 'text', text}]}`), in order, each as reply text or thinking. Other part
 * types (references, images) carry no text here.
 */
function contentParts(parts: unknown[], out: { think: boolean; text: string }[]): void {
  for (const part of parts) {
    if (typeof part === 'string') {
      out.push({ think: false, text: part });
      continue;
    }
    if (!isRecord(part)) continue;
    if (part.type === 'thinking' || part.type === 'reasoning') {
      const inner = part.type === 'thinking' ? part.thinking : (part.reasoning ?? part.text);
      if (typeof inner === 'string') out.push({ think: true, text: inner });
      else if (Array.isArray(inner)) {
        const nested: { think: boolean; text: string }[] = [];
        contentParts(inner, nested);
        for (const n of nested) out.push({ think: true, text: n.text });
      }
    } else if ((part.type === 'text' || part.type === undefined) && typeof part.text === 'string') out.push({ think: false, text: part.text });
  }
}

/** Token counts of a usage object (`prompt_tokens` / `completion_tokens`), or null. */
function usageOf(usage: unknown): { input: number; output: number } | null {
  if (!isRecord(usage)) return null;
  const input = tokenCount(usage.prompt_tokens);
  const output = tokenCount(usage.completion_tokens);
  return input !== null && output !== null ? { input, output } : null;
}

/** Longest tool name kept for the note (a name is the upstream's, not ours). */
const TOOL_NAME_CHARS = 64;

/**
 * Turns one parsed chunk into events (pushed onto `out`). Returns true when it carried a finish_reason.
 * `asImageLines`: the model answers with images (isImageChatModel); its text and images go out as the JSON lines of
 * spec 000 section 7 instead of plain text.
 *
 * Usage is read wherever providers put it: the top-level `usage` (OpenAI, OpenRouter, DeepSeek, Mistral, vLLM,
 * Ollama...), Groq's `x_groq.usage`, and on a chunk that carries an `error` (OpenRouter reports what a failed
 * generation used), before that error ends the stream.
 */
export function chunkEvents(chunk: unknown, out: ProviderEvent[], asImageLines = false): boolean {
  if (!isRecord(chunk)) return false;
  const usage = usageOf(chunk.usage) ?? (isRecord(chunk.x_groq) ? usageOf(chunk.x_groq.usage) : null);
  if (chunk.error !== undefined && chunk.error !== null) {
    if (usage !== null) out.push({ type: 'usage', inputTokens: usage.input, outputTokens: usage.output });
    const e = chunk.error;
    const msg = isRecord(e) && typeof e.message === 'string' ? e.message : typeof e === 'string' ? e : 'The model reported an error';
    throw new UpstreamStreamError(msg);
  }
  let finished = false;
  const choices = chunk.choices;
  if (Array.isArray(choices) && choices.length > 0) {
    const choice: unknown = choices[0];
    if (isRecord(choice)) {
      const delta = choice.delta;
      if (isRecord(delta)) {
        const r = typeof delta.reasoning === 'string' ? delta.reasoning : typeof delta.reasoning_content === 'string' ? delta.reasoning_content : '';
        // An image model's reasoning is left out: the gateway would wrap it in <think> ahead of the lines, which the
        // engine then reads as one broken line.
        if (r.length > 0 && !asImageLines) out.push({ type: 'reasoning', text: r });
        const content = delta.content;
        if (typeof content === 'string') {
          if (content.length > 0) out.push(asImageLines ? line({ type: 'text', text: content }) : { type: 'content', text: content });
        } else if (Array.isArray(content)) {
          const parts: { think: boolean; text: string }[] = [];
          contentParts(content, parts);
          for (const p of parts) {
            if (p.text.length === 0) continue;
            if (asImageLines) {
              if (!p.think) out.push(line({ type: 'text', text: p.text }));
            } else out.push({ type: p.think ? 'reasoning' : 'content', text: p.text });
          }
        }
        if (asImageLines) imageLines(delta.images, out);
        const calls = delta.tool_calls;
        if (Array.isArray(calls)) {
          for (const call of calls) {
            const fn = isRecord(call) ? call.function : undefined;
            const name = isRecord(fn) && typeof fn.name === 'string' ? fn.name.slice(0, TOOL_NAME_CHARS) : '';
            out.push({ type: 'toolCall', name });
          }
        }
      }
      if (typeof choice.finish_reason === 'string') finished = true;
    }
  }
  if (usage !== null) out.push({ type: 'usage', inputTokens: usage.input, outputTokens: usage.output });
  return finished;
}

/**
 * The message of an `event: error` SSE event: its data is usually JSON (`{"error": {"message": ...}}`,
 * `{"message": ...}`), sometimes plain text.
 */
export function errorEventMessage(data: string): string {
  const text = data.trim();
  if (text.length === 0) return 'The model reported an error';
  if (text.startsWith('{') || text.startsWith('"')) {
    try {
      const v = JSON.parse(text) as unknown;
      if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 1000);
    } catch {
      return text.slice(0, 1000);
    }
    return upstreamError(200, text).message.slice(0, 1000);
  }
  return text.slice(0, 1000);
}

/** The plain note a reply gets when the model asked for tools Parley does not offer (it produced no answer for them). */
export function toolCallNote(names: readonly string[]): string {
  const named = [...new Set(names.filter((n) => n.length > 0))];
  const which = named.length === 0 ? 'a tool' : named.length === 1 ? `a tool ("${named[0]}")` : `tools (${named.map((n) => `"${n}"`).join(', ')})`;
  return `The model tried to call ${which}, which Parley does not offer, so it stopped without finishing its answer.`;
}

/**
 * Reasoning some providers put in the reply text itself, between `<think>` and `</think>` at its very start
 * (DeepSeek R1 and QwQ on Together, Fireworks, Groq's `raw` format, older Ollama): moved to thinking, so the relay
 * frames it as thinking rather than as text that happens to contain tags. Only a `<think>` before any other text
 * counts; everything else passes through as it came.
 */
export class InlineThinkSplitter {
  private state: 'start' | 'think' | 'text' = 'start';
  private held = '';

  /** Events for one content delta. */
  take(text: string, out: ProviderEvent[]): void {
    if (this.state === 'text') {
      out.push({ type: 'content', text });
      return;
    }
    let s = this.held + text;
    this.held = '';
    if (this.state === 'start') {
      const lead = s.length - s.trimStart().length;
      const rest = s.slice(lead);
      if (rest.length < THINK_TAG.length && THINK_TAG.startsWith(rest)) {
        this.held = s; // not known yet
        return;
      }
      if (!rest.startsWith(THINK_TAG)) {
        this.state = 'text';
        out.push({ type: 'content', text: s });
        return;
      }
      this.state = 'think';
      s = rest.slice(THINK_TAG.length);
    }
    const end = s.indexOf(THINK_END);
    if (end === -1) {
      // Hold back a tail that may be the start of the closing tag.
      let keep = 0;
      for (let len = Math.min(s.length, THINK_END.length - 1); len > 0; len--) {
        if (THINK_END.startsWith(s.slice(s.length - len))) {
          keep = len;
          break;
        }
      }
      const now = s.slice(0, s.length - keep);
      this.held = s.slice(s.length - keep);
      if (now.length > 0) out.push({ type: 'reasoning', text: now });
      return;
    }
    if (end > 0) out.push({ type: 'reasoning', text: s.slice(0, end) });
    this.state = 'text';
    const after = s.slice(end + THINK_END.length).replace(/^\s+/, '');
    if (after.length > 0) out.push({ type: 'content', text: after });
  }

  /** End of the stream: what was held back, as it came. */
  flush(out: ProviderEvent[]): void {
    const h = this.held;
    this.held = '';
    if (h.length === 0) return;
    out.push(this.state === 'think' ? { type: 'reasoning', text: h } : { type: 'content', text: h });
  }
}

const THINK_TAG = '<think>';
const THINK_END = '</think>';

export class OpenAiProvider implements TextProvider {
  readonly id: string;
  private readonly baseUrl: string;
  private readonly apiKey: string | null;
  private readonly completionsUrl: URL;
  private readonly streamHeaders: Record<string, string>;
  private readonly http: HttpClient;

  constructor(options: OpenAiProviderOptions) {
    this.id = options.id;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.completionsUrl = new URL(`${this.baseUrl}/chat/completions`);
    this.streamHeaders = this.headers(false);
    this.http = new HttpClient(this.completionsUrl);
  }

  /** Drops pooled upstream connections. */
  close(): void {
    this.http.close();
  }

  private headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = { accept: json ? 'application/json' : 'text/event-stream' };
    if (!json) h['content-type'] = 'application/json';
    if (this.apiKey) h.authorization = `Bearer ${this.apiKey}`;
    return h;
  }

  /** GET {base}/models: the ids the upstream offers. Throws on any failure. */
  async listModels(timeoutMs: number): Promise<string[]> {
    const res = await fetch(`${this.baseUrl}/models`, { headers: this.headers(true), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      const e = upstreamError(res.status, await readLimited(res));
      throw new Error(`GET ${this.baseUrl}/models: HTTP ${res.status} ${e.message}`);
    }
    const body = (await res.json()) as unknown;
    const list = isRecord(body) && Array.isArray(body.data) ? body.data : Array.isArray(body) ? body : null;
    if (!list) throw new Error(`GET ${this.baseUrl}/models: unexpected body`);
    const ids = list.map((m: unknown) => (isRecord(m) && typeof m.id === 'string' ? m.id : null)).filter((x): x is string => x !== null && x.length > 0);
    return [...new Set(ids)];
  }

  /**
   * `imageLines`: ask for images too (`modalities: ['image', 'text']`) and stream the reply as the Gemini image
   * model's JSON lines (ImageLinesProvider below).
   */
  async open(req: ProviderChatRequest, signal: AbortSignal, imageLines = false): Promise<OpenStreamResult> {
    // The body around the conversation's JSON, which is used as it is (body/chat-payload.ts): a large one is bytes
    // from the body worker and goes to the socket without being copied or walked here.
    const head = `{"model":${JSON.stringify(req.model)},"messages":`;
    let tail = ',"stream":true,"stream_options":{"include_usage":true}';
    if (req.maxTokens !== undefined) tail += `,"max_tokens":${req.maxTokens}`;
    if (req.sampling) tail += samplingJson(req.sampling);
    if (imageLines) tail += ',"modalities":["image","text"]';
    tail += '}';
    const json = req.conversation.json;
    const body = typeof json === 'string' ? head + json + tail : [head, json, tail];
    let res: StreamingResponse;
    try {
      res = await this.http.post(this.completionsUrl, this.streamHeaders, body, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      const why = e instanceof Error ? `: ${e.message}` : '';
      return { ok: false, status: 503, error: 'UPSTREAM_UNREACHABLE', message: `Could not reach the model provider '${this.id}'${why}` };
    }
    if (res.status < 200 || res.status > 299) {
      const text = await readText(res.body, ERROR_BODY_LIMIT);
      return { ok: false, status: res.status, ...upstreamError(res.status, text) };
    }
    return { ok: true, events: new SseEventQueue(res.body, signal, imageLines) };
  }
}

/** An upstream's image chat model (isImageChatModel): the same provider, asked for images, answering in lines. */
export class ImageLinesProvider implements TextProvider {
  readonly id: string;
  constructor(private readonly inner: OpenAiProvider) {
    this.id = inner.id;
  }

  open(req: ProviderChatRequest, signal: AbortSignal): Promise<OpenStreamResult> {
    return this.inner.open(req, signal, true);
  }
}

/**
 * Turns an upstream SSE body into provider events as its chunks arrive: parsing happens in the socket's 'data'
 * callback and a waiting reader is handed the next event at once (a hand-rolled queue rather than the stream's
 * async iterator, which adds event-loop turns per chunk). The body is paused while too many events wait.
 */
class SseEventQueue implements AsyncIterableIterator<ProviderEvent>, BufferedEvents {
  private readonly queue: ProviderEvent[] = [];
  private head = 0;
  private waiter: { resolve: (r: IteratorResult<ProviderEvent>) => void; reject: (e: unknown) => void } | null = null;
  private failure: unknown = null;
  private finished = false; // a finish_reason was seen
  private ended = false; // no more events will come
  private modelSent = false;
  private pushed = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly parser = new SseParser();
  private readonly inlineThink = new InlineThinkSplitter();
  /** Tools the model asked to call (names), which Parley does not offer: noted at the end. */
  private readonly toolCalls: string[] = [];
  private sawContent = false;

  constructor(
    private readonly body: IncomingMessage,
    private readonly signal: AbortSignal,
    private readonly imageLines: boolean,
  ) {
    body.on('data', (chunk: Buffer) => {
      if (this.ended) return;
      const before = this.pushed;
      this.take(this.parse(() => this.parser.push(this.decoder.write(chunk))));
      // Bytes that carried no event (keep-alive comment, role-only chunk) still show the upstream is alive.
      if (!this.ended && this.pushed === before) this.push({ type: 'ping' });
      if (this.queue.length - this.head > 1024) body.pause();
    });
    body.once('end', () => {
      if (this.ended) return;
      this.take(this.parse(() => this.parser.push(this.decoder.end()).concat(this.parser.flush())));
      if (!this.ended) {
        if (this.finished) this.finish();
        else this.fail(new UpstreamStreamError('The model stream ended unexpectedly'));
      }
    });
    body.once('error', (e) => this.fail(this.signal.aborted ? e : new UpstreamStreamError('Connection to the model was lost')));
    body.once('close', () => {
      if (!this.ended) this.fail(this.signal.aborted ? (this.signal.reason ?? new Error('aborted')) : new UpstreamStreamError('Connection to the model was lost'));
    });
  }

  /** Runs the parser; an event past its size cap (sse.ts) fails the stream rather than buffering on. */
  private parse(step: () => SseEvent[]): SseEvent[] {
    try {
      return step();
    } catch (e) {
      this.fail(e instanceof SseTooLargeError ? new UpstreamStreamError(e.message) : e);
      return [];
    }
  }

  private take(events: SseEvent[]): void {
    const batch: ProviderEvent[] = [];
    for (const ev of events) {
      if (this.ended) return;
      if (ev.data === '[DONE]') {
        this.finish();
        // Read (and drop) whatever follows, so the keep-alive socket goes back to the pool.
        this.body.resume();
        return;
      }
      if (ev.event === 'error') {
        // Its usage first (what the failed generation used is still charged), then its message.
        try {
          const parsed = JSON.parse(ev.data) as unknown;
          const u = isRecord(parsed) ? (usageOf(parsed.usage) ?? (isRecord(parsed.x_groq) ? usageOf(parsed.x_groq.usage) : null)) : null;
          if (u !== null) this.push({ type: 'usage', inputTokens: u.input, outputTokens: u.output });
        } catch {
          // plain text
        }
        this.fail(new UpstreamStreamError(errorEventMessage(ev.data)));
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(ev.data) as unknown;
      } catch {
        continue; // not JSON: ignore, as OpenAI clients do
      }
      if (!this.modelSent && isRecord(parsed) && typeof parsed.model === 'string' && parsed.model) {
        this.modelSent = true;
        this.push({ type: 'model', model: parsed.model });
      }
      try {
        if (chunkEvents(parsed, batch, this.imageLines)) this.finished = true;
      } catch (e) {
        this.pushAll(batch);
        this.fail(e);
        return;
      }
      this.pushAll(batch);
      batch.length = 0;
    }
  }

  /** Pushes a chunk's events: reply text through the inline-thinking splitter, tool calls kept for the end note. */
  private pushAll(batch: ProviderEvent[]): void {
    for (const b of batch) {
      if (b.type === 'toolCall') {
        if (this.toolCalls.length < 16) this.toolCalls.push(b.name);
      } else if (b.type === 'content' && !this.imageLines) {
        this.sawContent = true;
        const split: ProviderEvent[] = [];
        this.inlineThink.take(b.text, split);
        for (const x of split) this.push(x);
      } else this.push(b);
    }
  }

  /** Before the last event: text the splitter held back, and the note of a tool call. */
  private flushHeld(): void {
    const tail: ProviderEvent[] = [];
    this.inlineThink.flush(tail);
    for (const x of tail) this.push(x);
    if (this.toolCalls.length > 0) {
      const note = toolCallNote(this.toolCalls);
      this.toolCalls.length = 0;
      this.push(this.imageLines ? line({ type: 'text', text: note }) : { type: 'content', text: this.sawContent ? `\n\n${note}` : note });
    }
  }

  private push(ev: ProviderEvent): void {
    this.pushed++;
    const w = this.waiter;
    if (w && this.head === this.queue.length) {
      this.waiter = null;
      w.resolve({ value: ev, done: false });
    } else this.queue.push(ev);
  }

  private finish(): void {
    if (this.ended) return;
    this.flushHeld();
    this.ended = true;
    this.settleWaiter();
  }

  private fail(e: unknown): void {
    if (this.ended) return;
    if (!this.signal.aborted) this.flushHeld();
    this.ended = true;
    this.failure = e;
    this.body.destroy();
    this.settleWaiter();
  }

  private settleWaiter(): void {
    const w = this.waiter;
    if (!w || this.head < this.queue.length) return;
    this.waiter = null;
    if (this.failure !== null) w.reject(this.failure);
    else w.resolve({ value: undefined, done: true });
  }

  /** Events parsed and waiting: the relay writes their text as one. */
  buffered(): number {
    return this.queue.length - this.head;
  }

  next(): Promise<IteratorResult<ProviderEvent>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++] as ProviderEvent;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
        if (this.body.isPaused() && !this.ended) this.body.resume();
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) return this.failure !== null ? Promise.reject(this.failure) : Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<ProviderEvent>> {
    // The consumer stopped early (abort, error): drop the upstream response.
    if (!this.ended) {
      this.ended = true;
      this.body.destroy();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ProviderEvent> {
    return this;
  }
}
