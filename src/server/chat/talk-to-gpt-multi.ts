/**
 * POST /api/talk-to-gpt-multi (spec 000 section 7): one prompt to several text models at once, their replies
 * interleaved as NDJSON lines (src/protocol/multi.ts, docs/protocol.md "Multi-model lines").
 *
 * Every model is its own paid call (money/paid-call.ts): its own upstream, its own hold and settle (key
 * `multi:{session}:{requestId}:{i}`), its own stall timer and its own end. One model failing (refused, out of
 * money, cut off) ends only its lines; the others go on. The response opens only once every upstream has answered
 * with headers: when none could start, the answer is an error (402 when every model was refused for the balance,
 * else the common status or 502) with the message 'Failed to start multi-model stream' and each model's reason in
 * `models`.
 *
 * The requestId is bound to its request like a chat reply's (../body/request-binding.ts, namespace `multi:`): another
 * request under it is refused with 409, and so is the same request again (a multi-model reply is not kept for a
 * replay): under one requestId, each model's upstream is called at most once. Lines go through a ReplySink
 * (./reply-sink.ts): a client slow to read holds the relays back (not a stall), and one that reads nothing for
 * PARLEY_CLIENT_TIMEOUT_MS is taken as gone.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { MultiStreamLine } from '../../protocol/multi';
import { CONTEXT_TOO_LONG } from '../../protocol/api';
import { FrameEscaper, THINK_CLOSE, THINK_OPEN, type StreamMetadata } from '../../protocol/stream';
import type { ChatPayload } from '../body/chat-payload';
import { readChatBody } from '../body/read-body';
import { type RouteContext } from '../context';
import { jsonError, type AppEnv } from '../http';
import { reservePaidCall, type OpenHold } from '../money/paid-call';
import { planReplyHold } from '../money/reply-hold';
import { formatNanoRawCeil, formatUsdMicro, replyCostMicro } from '../money/amounts';
import type { CatalogueEntry } from './catalogue';
import { OutputBudget, replyLimitMessage } from '../providers/output-budget';
import { UpstreamStreamError, type ProviderChatRequest, type ProviderEvent } from '../providers/types';
import { passSampling } from '../providers/sampling';
import { STALL_MESSAGE, upstreamRefusal } from './stream-gpt';
import { openSink, watchClientGone } from './stream-resume';
import { stripModelSuffix } from './catalogue';
import { WEB_NOT_RUN_NOTICE } from '../../protocol/web';

export const FAILED_TO_START_MULTI = 'Failed to start multi-model stream';

interface Started {
  index: number;
  entry: CatalogueEntry;
  conversation: ChatPayload;
  key: string;
  hold: OpenHold | null;
  /** The output budget sent upstream as max_tokens (a paid model's held output). */
  maxTokens: number | undefined;
  upstream: AbortController;
  events: AsyncIterable<ProviderEvent>;
  stall: ReturnType<typeof setTimeout>;
  stalled: boolean;
  /** A write waits on the client: not upstream silence, the stall timer does not fire. */
  writing: boolean;
}
interface Refused {
  modelId: string;
  status: number;
  error: string;
  message: string;
  requiredNanoRaw?: bigint;
  requiredUsdMicro?: bigint;
}

const line = (l: MultiStreamLine): string => `${JSON.stringify(l)}\n`;

const MULTI_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/x-ndjson; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Accel-Buffering': 'no',
};

export function registerTalkToGptMultiRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  app.post('/api/talk-to-gpt-multi', async (c) => {
    const sessionId = c.get('sessionId');
    // Validated at the edge; a large body is parsed off the event loop (body/read-body.ts).
    const body = await readChatBody(c, 'multi', ctx.settings.maxBodyBytes, ctx.bodies);
    if (!body.ok) return body.response;
    const { req, hash, conversations } = body.digest;
    const entries: CatalogueEntry[] = [];
    for (const id of req.models) {
      const entry = ctx.catalogue.resolve(id);
      if (!entry) return jsonError(c, 400, 'UNKNOWN_MODEL', `Unknown model '${id}'; see GET /api/models`);
      if (entry.info.modality !== 'text') return jsonError(c, 400, 'NOT_A_TEXT_MODEL', `'${id}' is not a text model; multi-model mode takes text models only`);
      entries.push(entry);
    }
    const requestId = req.requestId ?? randomUUID();
    const boundId = `multi:${requestId}`;
    const bound = await ctx.bindings.bind(sessionId, boundId, req.models.join(','), hash);
    if (bound.kind === 'no-session') return jsonError(c, 401, 'NO_SESSION', 'Unknown or expired session: call GET /auth/local-session again');
    if (bound.kind === 'other') {
      return jsonError(c, 409, 'REQUEST_ID_REUSED', `This requestId was already used for another request (${bound.differs === 'model' ? 'other models' : 'other messages or settings'}); send a new requestId for a new request`);
    }
    if (bound.kind === 'same') {
      return jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already sent; a multi-model reply is not kept for a retry: send a new requestId to ask again');
    }

    // Start every model at once; each either starts (holds its maximum cost, upstream answered) or is refused.
    const outcomes = await Promise.all(entries.map((entry, index) => start(entry, index)));
    async function start(entry: CatalogueEntry, index: number): Promise<Started | Refused> {
      const modelId = req.models[index] as string;
      const conversation = conversations[index] as ChatPayload;
      const key = `multi:${sessionId}:${requestId}:${index}`;
      const providerReq: ProviderChatRequest = { model: entry.upstreamModel, conversation };
      // The request's settings for every model, then this model's own (modelSettings), cut to what it takes.
      const own = { ...req, ...req.modelSettings?.[modelId] };
      const maxTokens = own.maxTokens;
      if (maxTokens !== undefined) providerReq.maxTokens = maxTokens;
      const sampling = passSampling(own, entry.params ?? [], entry.upstreamModel);
      if (Object.keys(sampling).length > 0) providerReq.sampling = sampling;
      let hold: OpenHold | null = null;
      let stall: ReturnType<typeof setTimeout> | null = null;
      const refuse = async (status: number, error: string, message: string): Promise<Refused> => {
        if (stall !== null) clearTimeout(stall);
        await hold?.release({ forget: true });
        return { modelId, status, error, message };
      };
      try {
        if (entry.price !== null) {
          const plan = planReplyHold(entry.price, conversation.inputTokens, maxTokens);
          const r = await reservePaidCall(ctx.ledger, sessionId, { key, maxUsdMicro: plan.maxUsdMicro, note: `talk-to-gpt-multi ${entry.info.id}` }, ctx.log);
          if (!r.ok && r.kind === 'short') {
            const { requiredUsdMicro: usd, requiredNanoRaw: raw } = r.shortfall;
            const message = `Insufficient balance: ${entry.info.name} needs ${formatUsdMicro(usd)} USD or ${formatNanoRawCeil(raw)} XNO available`;
            return { modelId, status: 402, error: 'INSUFFICIENT_BALANCE', message, requiredNanoRaw: raw, requiredUsdMicro: usd };
          }
          if (!r.ok) return { modelId, status: 409, error: 'REQUEST_ALREADY_ANSWERED', message: 'This model was already asked under this requestId' };
          hold = r.hold;
          providerReq.maxTokens = plan.outputTokens;
        }
        const upstream = new AbortController();
        const started: Omit<Started, 'events' | 'stall'> = { index, entry, conversation, key, hold, maxTokens: providerReq.maxTokens, upstream, stalled: false, writing: false };
        stall = setTimeout(() => {
          if (started.writing) return;
          started.stalled = true;
          upstream.abort(new Error(STALL_MESSAGE));
        }, ctx.settings.stallMs);
        try {
          const opened = await entry.provider.open(providerReq, upstream.signal);
          if (!opened.ok) {
            const refusal = upstreamRefusal(opened);
            return await refuse(refusal.status, refusal.error, refusal.message);
          }
          // The same object the stall timer sees: a copy would hide `writing` from it (a slow client taken for a
          // silent upstream) and its `stalled` from the relay.
          return Object.assign(started, { stall, events: opened.events });
        } catch (e) {
          if (started.stalled) return await refuse(503, 'UPSTREAM_STALL', STALL_MESSAGE);
          throw e;
        }
      } catch (e) {
        ctx.log(`talk-to-gpt-multi: ${modelId} could not start: ${e instanceof Error ? e.message : String(e)}`);
        return refuse(503, 'UPSTREAM_ERROR', e instanceof Error ? e.message : String(e));
      }
    }

    const running = outcomes.filter((o): o is Started => 'events' in o);
    const refused = outcomes.filter((o): o is Refused => !('events' in o));
    for (const r of refused) ctx.log(`talk-to-gpt-multi: ${r.modelId} refused: HTTP ${r.status} ${r.error}`);
    if (running.length === 0) {
      // Nothing reached an upstream: the requestId is free again (a retry after a credit, say).
      await ctx.bindings.unbind(sessionId, boundId).catch(() => {});
      const statuses = new Set(refused.map((r) => r.status));
      const status = (statuses.size === 1 ? [...statuses][0] : 502) as ContentfulStatusCode;
      const models = refused.map(({ modelId, status: st, error, message }) => ({ modelId, status: st, error, message }));
      const extra: Record<string, string> = {};
      if (status === 402) {
        extra.requiredBalance = formatNanoRawCeil(refused.reduce((sum, r) => sum + (r.requiredNanoRaw ?? 0n), 0n));
        extra.requiredUsd = formatUsdMicro(refused.reduce((sum, r) => sum + (r.requiredUsdMicro ?? 0n), 0n));
      }
      c.header('Cache-Control', 'no-store');
      const error = status === 402 ? 'INSUFFICIENT_BALANCE' : status === 413 ? CONTEXT_TOO_LONG : 'MULTI_STREAM_FAILED';
      return c.json({ error, message: FAILED_TO_START_MULTI, ...extra, models }, status);
    }

    let closed = false;
    const abortAll = (): void => {
      if (closed) return;
      closed = true;
      for (const r of running) r.upstream.abort(new Error('Client disconnected'));
    };
    const { sink, response } = openSink(c, abortAll, ctx.settings.clientTimeoutMs, MULTI_HEADERS);
    const stopWatching = watchClientGone(c, abortAll);
    /** Writes one line; while the client holds the write back (backpressure), `r`'s stall timer does not count. */
    const write = async (l: MultiStreamLine, r?: Started): Promise<void> => {
      if (closed) return;
      if (!r) return sink.write(line(l));
      r.writing = true;
      try {
        await sink.write(line(l));
      } finally {
        r.writing = false;
      }
      // Waiting on the client is not upstream silence: count from when the write went through.
      if (!r.stalled) r.stall.refresh();
    };

    // Refused models are reported first, then every running model relays as its upstream sends.
    for (const r of refused) {
      // A model refused for the balance says what it needs (spec 000 section 8: the 402 notice names the amount).
      const required = r.requiredNanoRaw !== undefined && r.requiredUsdMicro !== undefined ? { requiredBalance: formatNanoRawCeil(r.requiredNanoRaw), requiredUsd: formatUsdMicro(r.requiredUsdMicro) } : {};
      void write({ modelId: r.modelId, error: r.message, isError: true, status: r.status, code: r.error, ...required });
      void write({ modelId: r.modelId, complete: true });
    }
    void Promise.all(running.map((r) => relay(r))).finally(() => {
      stopWatching();
      sink.end();
    });

    async function relay(r: Started): Promise<void> {
      const modelId = req.models[r.index] as string;
      let textChars = 0;
      let otherChars = 0;
      let inThink = false;
      const frame = new FrameEscaper();
      let usage: { inputTokens: number; outputTokens: number } | null = null;
      let failure: string | null = null;
      // A paid model's column relays at most the output its hold covers (providers/output-budget.ts).
      const budget = r.hold !== null && r.maxTokens !== undefined ? new OutputBudget(r.maxTokens) : null;
      let cut = false;
      try {
        for await (const ev of r.events) {
          r.stall.refresh();
          if (ev.type === 'content' || ev.type === 'reasoning') {
            const think = ev.type === 'reasoning';
            const text = budget === null ? ev.text : budget.take(ev.text, ev.type === 'content' ? ev.wholeTokens : undefined);
            if (text.length > 0) {
              // Model text is escaped so a marker inside it reads as text (src/protocol/stream.ts, FrameEscaper).
              let chunk = '';
              if (think !== inThink) chunk = frame.flush() + (think ? THINK_OPEN : THINK_CLOSE);
              chunk += frame.take(text);
              inThink = think;
              if (think) otherChars += text.length;
              else textChars += text.length;
              if (chunk.length > 0) await write({ modelId, chunk }, r);
            }
            if (budget?.exhausted) {
              // Past what was held: this column relays no more and its upstream is stopped.
              cut = true;
              r.upstream.abort(new Error('The reply reached its held output budget'));
              break;
            }
          } else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
        }
      } catch (e) {
        if (!r.stalled && !closed) failure = e instanceof UpstreamStreamError ? e.message : 'The model stream failed';
      } finally {
        clearTimeout(r.stall);
      }
      const held = frame.flush() + (inThink ? THINK_CLOSE : '');
      if (held.length > 0) await write({ modelId, chunk: held });
      const inputTokens = usage?.inputTokens ?? r.conversation.inputTokens;
      // Cut at its budget: charged for what was relayed, by the budget's own count (at most the hold).
      const outputTokens = cut && budget !== null ? budget.used : (usage?.outputTokens ?? Math.ceil((textChars + otherChars) / 4));
      // A free reply reports no paymentSource: no balance paid for it.
      const meta: StreamMetadata = { cost: 0, inputTokens, outputTokens, isPartial: false, model: r.entry.info.id };
      // A ':online' model is searched for by nobody here: said, never silent (docs/decisions.md).
      if (stripModelSuffix(modelId) !== modelId) meta.webNotice = WEB_NOT_RUN_NOTICE;
      if (r.stalled) Object.assign(meta, { error: STALL_MESSAGE, isStreamStall: true, isPartial: textChars > 0 });
      else if (failure !== null) Object.assign(meta, { error: failure, isPartial: textChars > 0 });
      else if (cut && budget !== null) Object.assign(meta, { error: replyLimitMessage(budget.maxTokens), isPartial: textChars > 0 });
      else if (closed) Object.assign(meta, { error: 'The client went away', isPartial: textChars > 0 });
      // Charged like a single reply: unless it stalled or produced nothing (docs/gateway.md, "What is charged").
      if (!r.stalled && textChars + otherChars > 0) {
        if (r.hold !== null) {
          const settled = await r.hold.settle(replyCostMicro(r.entry.price as NonNullable<typeof r.entry.price>, inputTokens, outputTokens), { countReply: true });
          meta.cost = settled?.cost ?? 0;
          if (settled !== null) meta.paymentSource = settled.paymentSource;
          if (settled === null || settled.billingError) meta.billingError = true;
        } else ctx.ledger.freeReplies.record(sessionId, r.key, `talk-to-gpt-multi ${r.entry.info.id}`);
      } else await r.hold?.release();
      if (meta.error !== undefined && textChars === 0) await write({ modelId, error: meta.error, isError: true });
      await write({ modelId, metadata: meta, isMetadata: true });
      await write({ modelId, complete: true });
    }

    return response;
  });

  app.all('/api/talk-to-gpt-multi', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
