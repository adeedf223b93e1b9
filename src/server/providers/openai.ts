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
import { UpstreamStreamError, type OpenStreamResult, type ProviderChatRequest, type ProviderEvent, type TextProvider } from './types';

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
 * Turns one parsed chunk into events (pushed onto `out`). Returns true when it carried a finish_reason.
 * `asImageLines`: the model answers with images (isImageChatModel); its text and images go out as the JSON lines of
 * spec 000 section 7 instead of plain text.
 */
export function chunkEvents(chunk: unknown, out: ProviderEvent[], asImageLines = false): boolean {
  if (!isRecord(chunk)) return false;
  if (chunk.error !== undefined && chunk.error !== null) {
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
        if (typeof delta.content === 'string' && delta.content.length > 0) {
          out.push(asImageLines ? line({ type: 'text', text: delta.content }) : { type: 'content', text: delta.content });
        }
        if (asImageLines) imageLines(delta.images, out);
      }
      if (typeof choice.finish_reason === 'string') finished = true;
    }
  }
  const usage = chunk.usage;
  if (isRecord(usage)) {
    const input = tokenCount(usage.prompt_tokens);
    const output = tokenCount(usage.completion_tokens);
    if (input !== null && output !== null) out.push({ type: 'usage', inputTokens: input, outputTokens: output });
  }
  return finished;
}

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
    if (req.temperature !== undefined) tail += `,"temperature":${req.temperature}`;
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
class SseEventQueue implements AsyncIterableIterator<ProviderEvent> {
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
        this.fail(new UpstreamStreamError(ev.data || 'The model reported an error'));
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
        for (const b of batch) this.push(b);
        this.fail(e);
        return;
      }
      for (const b of batch) this.push(b);
      batch.length = 0;
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
    this.ended = true;
    this.settleWaiter();
  }

  private fail(e: unknown): void {
    if (this.ended) return;
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
