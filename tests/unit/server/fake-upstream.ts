/**
 * A fake OpenAI-compatible upstream on loopback for gateway tests, e2e tests and the relay benchmark.
 *
 * It speaks the chat-completions streaming format exactly as OpenAI does: `text/event-stream`, one
 * `data: {chat.completion.chunk}` line plus a blank line per chunk, a first chunk with the assistant role, content
 * and reasoning deltas (`reasoning` or `reasoning_content`), a last chunk with `finish_reason`, a usage chunk with
 * `choices: []` when the request asked for `stream_options.include_usage`, then `data: [DONE]`.
 * It can also answer with an HTTP error, drop the connection mid-stream, or stall.
 *
 *   const up = await startFakeUpstream(textReply('Hello there', { usage: { prompt_tokens: 10, completion_tokens: 3 } }));
 *   // gateway env: PARLEY_UPSTREAM_URL = up.url, PARLEY_UPSTREAM_MODELS = 'fake-model'
 *   await up.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One step of a scripted stream. */
export type FakeStep =
  /** A content delta. */
  | { content: string }
  /** A reasoning delta, in `delta.reasoning` (OpenRouter, Ollama) or `delta.reasoning_content` (DeepSeek, vLLM). */
  | { reasoning: string; field?: 'reasoning' | 'reasoning_content' }
  /** Wait before the next step. */
  | { delayMs: number }
  /** An SSE comment line (keep-alive), e.g. ': OPENROUTER PROCESSING'. */
  | { comment: string }
  /** Exactly these bytes. */
  | { raw: string | Uint8Array }
  /** An error object inside the stream (as OpenRouter sends mid-stream). */
  | { streamError: { message: string; code?: string | number } };

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** What the fake does with one chat-completions request. */
export interface FakeScript {
  /** Answer with this HTTP status and body instead of a stream (body: object = JSON, string = as is). */
  error?: { status: number; body?: unknown; headers?: Record<string, string> };
  /** Delay before the response headers. */
  headersDelayMs?: number;
  steps?: FakeStep[];
  /** finish_reason of the last chunk; default 'stop'. */
  finishReason?: string;
  /** Usage chunk, sent when the request asked for it (stream_options.include_usage). */
  usage?: FakeUsage;
  /**
   * How the stream ends after the steps:
   *  - 'done' (default): finish chunk, usage chunk, `data: [DONE]`, end of response;
   *  - 'drop': destroy the connection abruptly (no finish chunk, no [DONE]);
   *  - 'stall': send nothing more and keep the connection open until the client goes away (or close());
   *  - 'end': end the response cleanly but without a finish chunk or [DONE].
   */
  end?: 'done' | 'drop' | 'stall' | 'end';
  /** `model` field of the chunks; default: the requested model. */
  model?: string;
  /**
   * Only the steps' bytes: no role chunk of the fake's own first (a recorded or documented stream replayed as it is,
   * with `end: 'end'`). Each step is written in its own event-loop turn, so pieces leave as separate writes.
   */
  bare?: boolean;
}

/** A request the fake received. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or null. */
  body: FakeChatBody | null;
  /** The client closed the connection before the fake finished answering. */
  aborted: boolean;
  /** Content and reasoning deltas written so far (how much the upstream "generated"). */
  sent: number;
}

/** The chat-completions request body as the fake reads it. */
export interface FakeChatBody {
  model?: string;
  messages?: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  temperature?: number;
  [k: string]: unknown;
}

export type FakeScriptInput = FakeScript | ((req: FakeRequest, index: number) => FakeScript);

export interface FakeUpstreamOptions {
  /** Ids listed by GET /v1/models; default ['fake-model']. */
  models?: string[];
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (else 401 with an OpenAI error body). */
  apiKey?: string;
  /** GET /v1/models answers this status with an error body instead (discovery failure tests). */
  modelsStatus?: number;
}

export interface FakeUpstream {
  /** Base URL including /v1, e.g. http://127.0.0.1:40123/v1 (what PARLEY_UPSTREAM_URL takes). */
  url: string;
  port: number;
  /** Every chat-completions request, in arrival order. */
  requests: FakeRequest[];
  /** Replace the script for the next requests. */
  setScript(script: FakeScriptInput): void;
  /** Resolves when `count` chat requests have finished or been aborted (default: all received so far). */
  settled(count?: number): Promise<void>;
  close(): Promise<void>;
}

const CREATED = 1_700_000_000;

/** One `data:` line of a chat.completion.chunk, as OpenAI formats it. */
export function chunkLine(model: string, id: string, choices: unknown[], usage?: FakeUsage | null): string {
  const chunk: Record<string, unknown> = {
    id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    system_fingerprint: 'fp_fake',
    choices,
  };
  if (usage !== undefined) chunk.usage = usage;
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function deltaChoice(delta: Record<string, unknown>, finishReason: string | null = null): unknown {
  return { index: 0, delta, logprobs: null, finish_reason: finishReason };
}

/** A script streaming `text` in pieces of `chunkSize` characters (default: one word per chunk). */
export function textReply(
  text: string,
  options: { chunkSize?: number; usage?: FakeUsage; reasoning?: string; delayMs?: number } = {},
): FakeScript {
  // Pieces never split a character (code points, not UTF-16 units), as a real upstream's deltas do not.
  const pieces = (s: string): string[] => {
    if (!options.chunkSize) return s.match(/\s*\S+|\s+$/g) ?? [];
    const chars = Array.from(s);
    const out: string[] = [];
    for (let i = 0; i < chars.length; i += options.chunkSize) out.push(chars.slice(i, i + options.chunkSize).join(''));
    return out;
  };
  const steps: FakeStep[] = [];
  const pace = (): void => {
    if (options.delayMs) steps.push({ delayMs: options.delayMs });
  };
  for (const r of options.reasoning ? pieces(options.reasoning) : []) {
    pace();
    steps.push({ reasoning: r });
  }
  for (const t of pieces(text)) {
    pace();
    steps.push({ content: t });
  }
  const script: FakeScript = { steps };
  if (options.usage) script.usage = options.usage;
  return script;
}

/** An OpenAI-style error body. */
export function openAiError(message: string, type: string, code: string | null = null): unknown {
  return { error: { message, type, param: null, code } };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Sleeps, but wakes early when the client goes away. */
function sleepUnlessClosed(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((r) => {
    const done = (): void => {
      clearTimeout(t);
      res.off('close', done);
      r();
    };
    const t = setTimeout(done, ms);
    res.once('close', done);
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startFakeUpstream(script: FakeScriptInput, options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  let current: FakeScriptInput = script;
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  const pending = new Set<Promise<void>>();
  const models = options.models ?? ['fake-model'];
  let counter = 0;

  const write = (res: ServerResponse, text: string | Uint8Array): void => {
    if (!res.destroyed && !res.writableEnded) res.write(text);
  };

  async function handleChat(req: IncomingMessage, res: ServerResponse, record: FakeRequest, index: number): Promise<void> {
    const s = typeof current === 'function' ? current(record, index) : current;
    if (s.headersDelayMs) await sleep(s.headersDelayMs);
    if (record.aborted) return;
    if (s.error) {
      const body = s.error.body === undefined ? openAiError(`Fake error ${s.error.status}`, 'fake_error') : s.error.body;
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(s.error.status, {
        'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
        ...s.error.headers,
      });
      res.end(text);
      return;
    }
    const model = s.model ?? record.body?.model ?? 'fake-model';
    const id = `chatcmpl-fake${index}`;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    if (!s.bare) write(res, chunkLine(model, id, [deltaChoice({ role: 'assistant', content: '', refusal: null })]));
    for (const step of s.steps ?? []) {
      if (record.aborted || res.destroyed) return;
      if (s.bare) await new Promise<void>((r) => setImmediate(r));
      if ('delayMs' in step) await sleepUnlessClosed(step.delayMs, res);
      else if ('content' in step) {
        write(res, chunkLine(model, id, [deltaChoice({ content: step.content })]));
        record.sent++;
      } else if ('reasoning' in step) {
        write(res, chunkLine(model, id, [deltaChoice({ content: null, [step.field ?? 'reasoning']: step.reasoning })]));
        record.sent++;
      }
      else if ('comment' in step) write(res, `: ${step.comment}\n\n`);
      else if ('raw' in step) write(res, step.raw);
      else if ('streamError' in step) write(res, `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model, error: step.streamError, choices: [] })}\n\n`);
    }
    const end = s.end ?? 'done';
    if (end === 'drop') {
      // Let the last writes leave first, then cut the connection without ending the chunked body.
      await sleep(5);
      res.socket?.destroy();
      return;
    }
    if (end === 'stall') {
      await new Promise<void>((r) => {
        if (record.aborted || res.destroyed) r();
        res.once('close', () => r());
      });
      return;
    }
    if (end === 'end') {
      res.end();
      return;
    }
    write(res, chunkLine(model, id, [deltaChoice({}, s.finishReason ?? 'stop')]));
    if (s.usage && record.body?.stream_options?.include_usage === true) {
      const u = s.usage;
      write(res, chunkLine(model, id, [], { ...u, total_tokens: u.prompt_tokens + u.completion_tokens } as FakeUsage));
    }
    write(res, 'data: [DONE]\n\n');
    res.end();
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const task = (async () => {
      const raw = await readBody(req);
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify(openAiError('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key')));
        return;
      }
      if (req.method === 'GET' && path === '/v1/models') {
        if (options.modelsStatus !== undefined) {
          res.writeHead(options.modelsStatus, { 'content-type': 'application/json' });
          res.end(JSON.stringify(openAiError('models unavailable', 'server_error')));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: models.map((m) => ({ id: m, object: 'model', created: CREATED, owned_by: 'fake' })) }));
        return;
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') {
        let body: FakeChatBody | null = null;
        try {
          const parsed = JSON.parse(raw) as unknown;
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as FakeChatBody;
        } catch {
          body = null;
        }
        const record: FakeRequest = { method: req.method, path, headers: { ...req.headers }, body, aborted: false, sent: 0 };
        requests.push(record);
        res.once('close', () => {
          if (!res.writableFinished) record.aborted = true;
        });
        if (!body) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify(openAiError('We could not parse the JSON body of your request.', 'invalid_request_error')));
          return;
        }
        await handleChat(req, res, record, counter++);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(openAiError(`Unknown path ${path}`, 'invalid_request_error')));
    })().catch(() => {
      res.destroy();
    });
    pending.add(task);
    void task.finally(() => pending.delete(task));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
  });
  // Idle keep-alive sockets stay open for the whole test: with Node's 5 s default, a busy machine let the client
  // reuse a socket the server was closing (ECONNRESET on the next request, a failure no real provider causes).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    setScript(next) {
      current = next;
    },
    async settled(count) {
      const want = count ?? requests.length;
      for (let i = 0; i < 500; i++) {
        if (requests.length >= want && pending.size === 0) return;
        await sleep(10);
      }
      throw new Error(`fake upstream: ${requests.length}/${want} requests, ${pending.size} still open`);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
