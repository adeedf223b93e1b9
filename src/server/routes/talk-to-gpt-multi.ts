/**
 * POST /api/talk-to-gpt-multi (spec 000 section 7): one prompt to several text models at once, their replies
 * interleaved as NDJSON lines (src/protocol/multi.ts, docs/protocol.md "Multi-model lines").
 *
 * Every model is its own reply: its own upstream, its own hold and charge (key `multi:{session}:{requestId}:{i}`),
 * its own stall timer and its own end. One model failing (refused, out of money, cut off) ends only its lines; the
 * others go on. The response opens only once every upstream has answered with headers: when none could start,
 * the answer is an error (402 when every model was refused for the balance, else the common status or 502) with
 * the message 'Failed to start multi-model stream' and each model's reason in `models`.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ChatMessage } from '../../protocol/api';
import { TalkToGptMultiRequestSchema, type MultiStreamLine, type TalkToGptMultiRequest } from '../../protocol/multi';
import { THINK_CLOSE, THINK_OPEN, type PaymentSource, type StreamMetadata } from '../../protocol/stream';
import { describeIssues, jsonError, readJson, type AppEnv, type RouteContext } from '../context';
import type { ChargeResult } from '../ledger/ledger';
import { HOLD_TTL_MS, planReplyHold } from '../ledger/reply-hold';
import { formatNanoRawCeil, formatUsdMicro, PAID_THRESHOLD_NANO_RAW, PAID_THRESHOLD_USD_MICRO, replyCostMicro } from '../money';
import type { CatalogueEntry } from '../providers/catalogue';
import { estimateInputTokens } from '../providers/offline';
import { UpstreamStreamError, type ProviderChatRequest, type ProviderEvent } from '../providers/types';
import { mapUpstreamStatus, STALL_MESSAGE } from './stream-gpt';

export const FAILED_TO_START_MULTI = 'Failed to start multi-model stream';

interface Started {
  index: number;
  entry: CatalogueEntry;
  messages: ChatMessage[];
  key: string;
  held: boolean;
  upstream: AbortController;
  events: AsyncIterable<ProviderEvent>;
  stall: ReturnType<typeof setTimeout>;
  stalled: boolean;
}
interface Refused {
  modelId: string;
  status: number;
  error: string;
  message: string;
  requiredNanoRaw?: bigint;
  requiredUsdMicro?: bigint;
}

/** The messages a model gets: its payload's, else the instructions (as a system message) and the prompt. */
function messagesFor(req: TalkToGptMultiRequest, index: number): ChatMessage[] {
  const payload = req.modelPayloads?.find((p) => p.modelIndex === index);
  if (payload) return payload.messages;
  const out: ChatMessage[] = [];
  if (req.instructions && req.instructions.trim() !== '') out.push({ role: 'system', content: req.instructions });
  out.push({ role: 'user', content: req.prompt ?? '' });
  return out;
}

function paymentSourceOf(r: ChargeResult): PaymentSource {
  if (r.source === 'nano') return 'nano';
  if (r.source === 'mixed') return r.chargedUsdMicro * 2n >= r.chargedUsdValueMicro ? 'USD' : 'nano';
  return 'USD';
}

const line = (l: MultiStreamLine): string => `${JSON.stringify(l)}\n`;

export function registerTalkToGptMultiRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  app.post('/api/talk-to-gpt-multi', async (c) => {
    const sessionId = c.get('sessionId');
    const body = await readJson(c, ctx.settings.maxBodyBytes);
    if (!body.ok) return body.response;
    const parsed = TalkToGptMultiRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const req = parsed.data;
    const entries: CatalogueEntry[] = [];
    for (const id of req.models) {
      const entry = ctx.catalogue.resolve(id);
      if (!entry) return jsonError(c, 400, 'UNKNOWN_MODEL', `Unknown model '${id}'; see GET /api/models`);
      if (entry.info.modality !== 'text') return jsonError(c, 400, 'NOT_A_TEXT_MODEL', `'${id}' is not a text model; multi-model mode takes text models only`);
      entries.push(entry);
    }
    const requestId = req.requestId ?? randomUUID();

    // Start every model at once; each either starts (holds its maximum cost, upstream answered) or is refused.
    const outcomes = await Promise.all(entries.map((entry, index) => start(entry, index)));
    async function start(entry: CatalogueEntry, index: number): Promise<Started | Refused> {
      const modelId = req.models[index] as string;
      const messages = messagesFor(req, index);
      const key = `multi:${sessionId}:${requestId}:${index}`;
      const providerReq: ProviderChatRequest = { model: entry.upstreamModel, messages };
      if (req.maxTokens !== undefined) providerReq.maxTokens = req.maxTokens;
      if (req.temperature !== undefined) providerReq.temperature = req.temperature;
      let held = false;
      if (entry.price !== null) {
        const plan = planReplyHold(entry.price, messages, req.maxTokens);
        const r = await ctx.ledger.reserve(sessionId, {
          key,
          maxUsdMicro: plan.maxUsdMicro,
          ttlMs: HOLD_TTL_MS,
          above: { usdMicro: PAID_THRESHOLD_USD_MICRO, nanoRaw: PAID_THRESHOLD_NANO_RAW },
          note: `talk-to-gpt-multi ${entry.info.id}`,
        });
        if (!r.ok) {
          const raw = r.requiredNanoRaw > PAID_THRESHOLD_NANO_RAW ? r.requiredNanoRaw : PAID_THRESHOLD_NANO_RAW;
          const usd = r.requiredUsdMicro > PAID_THRESHOLD_USD_MICRO ? r.requiredUsdMicro : PAID_THRESHOLD_USD_MICRO;
          const message = `Insufficient balance: ${entry.info.name} needs ${formatUsdMicro(usd)} USD or ${formatNanoRawCeil(raw)} XNO available`;
          return { modelId, status: 402, error: 'INSUFFICIENT_BALANCE', message, requiredNanoRaw: raw, requiredUsdMicro: usd };
        }
        held = true;
        providerReq.maxTokens = plan.outputTokens;
      }
      const upstream = new AbortController();
      const started: Omit<Started, 'events'> = { index, entry, messages, key, held, upstream, stalled: false, stall: setTimeout(() => undefined, 0) };
      clearTimeout(started.stall);
      started.stall = setTimeout(() => {
        started.stalled = true;
        upstream.abort(new Error(STALL_MESSAGE));
      }, ctx.settings.stallMs);
      const refuse = async (status: number, error: string, message: string): Promise<Refused> => {
        clearTimeout(started.stall);
        if (held) await ctx.ledger.release(key, { forget: true }).catch(() => false);
        return { modelId, status, error, message };
      };
      try {
        const opened = await entry.provider.open(providerReq, upstream.signal);
        if (!opened.ok) return refuse(mapUpstreamStatus(opened.status), opened.error, opened.message);
        return { ...started, events: opened.events };
      } catch (e) {
        return refuse(503, started.stalled ? 'UPSTREAM_STALL' : 'UPSTREAM_ERROR', started.stalled ? STALL_MESSAGE : e instanceof Error ? e.message : String(e));
      }
    }

    const running = outcomes.filter((o): o is Started => 'events' in o);
    const refused = outcomes.filter((o): o is Refused => !('events' in o));
    for (const r of refused) ctx.log(`talk-to-gpt-multi: ${r.modelId} refused: HTTP ${r.status} ${r.error}`);
    if (running.length === 0) {
      const statuses = new Set(refused.map((r) => r.status));
      const status = (statuses.size === 1 ? [...statuses][0] : 502) as ContentfulStatusCode;
      const models = refused.map(({ modelId, status: s, error, message }) => ({ modelId, status: s, error, message }));
      const extra: Record<string, string> = {};
      if (status === 402) {
        extra.requiredBalance = formatNanoRawCeil(refused.reduce((sum, r) => sum + (r.requiredNanoRaw ?? 0n), 0n));
        extra.requiredUsd = formatUsdMicro(refused.reduce((sum, r) => sum + (r.requiredUsdMicro ?? 0n), 0n));
      }
      c.header('Cache-Control', 'no-store');
      return c.json({ error: status === 402 ? 'INSUFFICIENT_BALANCE' : 'MULTI_STREAM_FAILED', message: FAILED_TO_START_MULTI, ...extra, models }, status);
    }

    const encoder = new TextEncoder();
    let out: ReadableStreamDefaultController<Uint8Array> | null = null;
    let closed = false;
    const write = (l: MultiStreamLine): void => {
      if (closed || !out) return;
      try {
        out.enqueue(encoder.encode(line(l)));
      } catch {
        closed = true;
      }
    };
    const abortAll = (): void => {
      closed = true;
      for (const r of running) r.upstream.abort(new Error('Client disconnected'));
    };
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        out = controller;
      },
      cancel: abortAll,
    });
    c.req.raw.signal.addEventListener('abort', abortAll, { once: true });

    // Refused models are reported first, then every running model relays as its upstream sends.
    for (const r of refused) {
      write({ modelId: r.modelId, error: r.message, isError: true, status: r.status, code: r.error });
      write({ modelId: r.modelId, complete: true });
    }
    void Promise.all(running.map((r) => relay(r))).finally(() => {
      if (closed) return;
      closed = true;
      try {
        out?.close();
      } catch {
        // the client went away
      }
    });

    async function relay(r: Started): Promise<void> {
      const modelId = req.models[r.index] as string;
      let textChars = 0;
      let otherChars = 0;
      let inThink = false;
      let usage: { inputTokens: number; outputTokens: number } | null = null;
      let failure: string | null = null;
      try {
        for await (const ev of r.events) {
          r.stall.refresh();
          if (ev.type === 'content' || ev.type === 'reasoning') {
            const think = ev.type === 'reasoning';
            let chunk = ev.text;
            if (think !== inThink) chunk = (think ? THINK_OPEN : THINK_CLOSE) + chunk;
            inThink = think;
            if (think) otherChars += ev.text.length;
            else textChars += ev.text.length;
            write({ modelId, chunk });
          } else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
        }
      } catch (e) {
        if (!r.stalled && !closed) failure = e instanceof UpstreamStreamError ? e.message : 'The model stream failed';
      } finally {
        clearTimeout(r.stall);
      }
      if (inThink) write({ modelId, chunk: THINK_CLOSE });
      const inputTokens = usage?.inputTokens ?? estimateInputTokens(r.messages);
      const outputTokens = usage?.outputTokens ?? Math.ceil((textChars + otherChars) / 4);
      const meta: StreamMetadata = { cost: 0, paymentSource: 'USD', inputTokens, outputTokens, isPartial: false, model: r.entry.info.id };
      if (r.stalled) Object.assign(meta, { error: STALL_MESSAGE, isStreamStall: true, isPartial: textChars > 0 });
      else if (failure !== null) Object.assign(meta, { error: failure, isPartial: textChars > 0 });
      else if (closed) Object.assign(meta, { error: 'The client went away', isPartial: textChars > 0 });
      // Charged like a single reply: unless it stalled or produced nothing (docs/gateway.md, "What is charged").
      if (!r.stalled && textChars + otherChars > 0) {
        const cost = r.entry.price !== null ? replyCostMicro(r.entry.price, inputTokens, outputTokens) : 0n;
        const note = `talk-to-gpt-multi ${r.entry.info.id}`;
        try {
          const res = r.held
            ? await ctx.ledger.settle(sessionId, r.key, cost, { countReply: true, note })
            : await ctx.ledger.charge(sessionId, { key: r.key, usdMicro: cost, countReply: true, note });
          meta.cost = Number(res.chargedUsdValueMicro) / 1e6;
          meta.paymentSource = paymentSourceOf(res);
          if (res.status !== 'applied') meta.billingError = true;
        } catch (e) {
          ctx.log(`talk-to-gpt-multi: charge failed for ${sessionId}: ${e instanceof Error ? e.message : String(e)}`);
          meta.billingError = true;
        }
      } else if (r.held) await ctx.ledger.release(r.key).catch(() => false);
      if (meta.error !== undefined && textChars === 0) write({ modelId, error: meta.error, isError: true });
      write({ modelId, metadata: meta, isMetadata: true });
      write({ modelId, complete: true });
    }

    return c.body(readable, 200, {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Accel-Buffering': 'no',
    });
  });

  app.all('/api/talk-to-gpt-multi', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
