/**
 * POST /api/stream-gpt (spec 000 section 7): validates, checks the balance for paid models, opens the provider
 * stream and relays it in Parley's framing (src/protocol/stream.ts, docs/protocol.md):
 *
 *   reply text as plain UTF-8 text, reasoning inside <think>...</think>, and always a final
 *   <metadata>{cost, paymentSource, inputTokens, outputTokens, isPartial, model, ...}</metadata>.
 *
 * Each delta is written as it arrives (the deltas of one network chunk as one write); nothing waits for more. A
 * requestId is bound to one request (../body/request-binding.ts): a different reuse is refused, a true retry replays
 * the reply instead of starting another. A paid reply reserves its maximum cost before the upstream is called (a
 * hold, src/server/money/holds.ts) and settles the actual cost once, after the stream ends and before the metadata
 * tag, so the metadata reports what was charged.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CONTEXT_TOO_LONG } from '../../protocol/api';
import { WEB_NOT_RUN_NOTICE } from '../../protocol/web';
import { encodeMetadata, FrameEscaper, THINK_CLOSE, THINK_OPEN, type StreamMetadata } from '../../protocol/stream';
import { readChatBody } from '../body/read-body';
import { type RouteContext } from '../context';
import { jsonError, type AppEnv } from '../http';
import { insufficientBalance, insufficientBalanceMessage, reservePaidCall, type OpenHold } from '../money/paid-call';
import { planReplyHold } from '../money/reply-hold';
import { replyCostMicro } from '../money/amounts';
import { OutputBudget, replyLimitMessage } from '../providers/output-budget';
import { bufferedCount, UpstreamStreamError, type ProviderChatRequest } from '../providers/types';
import { passSampling } from '../providers/sampling';
import type { ReplySink } from './reply-sink';
import { attachReply, openSink, registerReplyRoutes, replyKey, STREAM_HEADERS, watchClientGone } from './stream-resume';
import { stripModelSuffix } from './catalogue';

export const STALL_MESSAGE = 'Model stopped responding';
export const CUT_OFF_MESSAGE = 'The reply was cut off before it finished: its connection was lost or it was stopped.';

/** Upstream statuses passed through as they are; any other upstream failure is 502. */
const PASS_THROUGH = new Set([400, 402, 403, 413, 429, 503]);

export function mapUpstreamStatus(status: number): ContentfulStatusCode {
  return PASS_THROUGH.has(status) ? (status as ContentfulStatusCode) : 502;
}

/**
 * The answer to a provider's refusal: its status mapped (above) and its code and message, except that a 413 (the
 * context is too long for the provider right now) gets the gateway's own code, so a client can tell it from the
 * gateway's PAYLOAD_TOO_LARGE; the provider's message is kept.
 */
export function upstreamRefusal(refused: { status: number; error: string; message: string }): { status: ContentfulStatusCode; error: string; message: string } {
  const status = mapUpstreamStatus(refused.status);
  return { status, error: status === 413 ? CONTEXT_TOO_LONG : refused.error, message: refused.message };
}

/**
 * How long past the stall limit a true retry waits for the first request's reply to appear: the first request
 * may still be opening its upstream, which takes at most the stall limit.
 */
const RETRY_OPEN_SLACK_MS = 2000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function registerStreamGptRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  const replies = ctx.replies;
  registerReplyRoutes(app, ctx, replies);

  app.post('/api/stream-gpt', async (c) => {
    const sessionId = c.get('sessionId');
    // Validated at the edge; a large body is parsed off the event loop (body/read-body.ts).
    const body = await readChatBody(c, 'stream-gpt', ctx.settings.maxBodyBytes, ctx.bodies);
    if (!body.ok) return body.response;
    const { req, hash, conversation } = body.digest;
    const entry = ctx.catalogue.resolve(req.model);
    if (!entry) return jsonError(c, 400, 'UNKNOWN_MODEL', `Unknown model '${req.model}'; see GET /api/models`);

    // Every reply is bound to its request (a request without a requestId gets a fresh one). A requestId is bound to
    // one request; the same request again is a retry: it gets the first one's reply (replayed, then live), never a
    // second upstream generation.
    const requestId = req.requestId ?? randomUUID();
    const chargeKey = replyKey(sessionId, requestId);
    for (;;) {
      const bound = await ctx.bindings.bind(sessionId, requestId, req.model, hash);
      if (bound.kind === 'new') break;
      if (bound.kind === 'no-session') return jsonError(c, 401, 'NO_SESSION', 'Unknown or expired session: call GET /auth/local-session again');
      if (bound.kind === 'other') {
        return jsonError(
          c,
          409,
          'REQUEST_ID_REUSED',
          `This requestId was already used for another request (${bound.differs === 'model' ? 'another model' : 'other messages or settings'}); send a new requestId for a new request`,
        );
      }
      const attached = await attachReply(c, replies, chargeKey, ctx.settings.clientTimeoutMs);
      if (attached) return attached;
      if (bound.ageMs > ctx.settings.stallMs + RETRY_OPEN_SLACK_MS) {
        return jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered and its reply is no longer kept; send a new requestId to ask again');
      }
      await sleep(25); // the first request is still opening its upstream
    }
    /** The request ends before its upstream was used: free its requestId for a retry. */
    const unbind = async (): Promise<void> => {
      await ctx.bindings.unbind(sessionId, requestId).catch((e: unknown) => {
        ctx.log(`stream-gpt: could not free requestId ${requestId}: ${e instanceof Error ? e.message : String(e)}`);
      });
    };

    const providerReq: ProviderChatRequest = { model: entry.upstreamModel, conversation };
    if (req.maxTokens !== undefined) providerReq.maxTokens = req.maxTokens;
    // The settings the user set, cut to what this model's upstream takes (providers/sampling.ts).
    const sampling = passSampling(req, entry.params ?? [], entry.upstreamModel);
    if (Object.keys(sampling).length > 0) providerReq.sampling = sampling;
    const note = `stream-gpt ${entry.info.id}`;
    // recommendedTier: the tier the client's catalogue gave the model; a stale one is worth a line in the log.
    const tier = entry.price === null ? 'free' : 'paid';
    if (req.recommendedTier !== undefined && req.recommendedTier !== tier) ctx.log(`stream-gpt: ${entry.info.id} is ${tier}, the client sent recommendedTier '${req.recommendedTier}'`);

    // A paid reply reserves its maximum cost first (docs/gateway.md, "Holds"); the budget it holds for the
    // output is what the upstream is allowed to produce.
    let hold: OpenHold | null = null;
    if (entry.price !== null) {
      const plan = planReplyHold(entry.price, conversation.inputTokens, req.maxTokens);
      let r;
      try {
        r = await reservePaidCall(ctx.ledger, sessionId, { key: chargeKey, maxUsdMicro: plan.maxUsdMicro, note }, ctx.log);
      } catch (e) {
        await unbind();
        throw e;
      }
      if (!r.ok && r.kind === 'short') {
        await unbind();
        return insufficientBalance(c, insufficientBalanceMessage(entry.info.name, r.shortfall), r.shortfall);
      }
      if (!r.ok) {
        // This key already had a hold (an earlier request under this requestId got past its binding): never a
        // second generation under one key, whatever state that hold is in.
        return jsonError(c, 409, 'REQUEST_ALREADY_ANSWERED', 'This request was already answered; send a new requestId to ask again');
      }
      hold = r.hold;
      providerReq.maxTokens = plan.outputTokens;
    }

    // One controller for the upstream request; aborted on stall, on Stop, when nobody resumes a lost reply, or when
    // the output passes what was held (an upstream that ignores max_tokens).
    const upstream = new AbortController();
    let endReason: 'stall' | 'client' | 'limit' | null = null;
    // A paid reply relays at most the output it held (providers/output-budget.ts).
    const budget = hold !== null && providerReq.maxTokens !== undefined ? new OutputBudget(providerReq.maxTokens) : null;
    // A stall is the upstream going silent, never the client being slow to read: while the relay waits on a
    // client's backpressure the timer does not count (it is refreshed once the write is through).
    let writing = false;
    const stallTimer = setTimeout(() => {
      if (writing) return;
      if (endReason === null) endReason = 'stall';
      upstream.abort(new Error(STALL_MESSAGE));
    }, ctx.settings.stallMs);
    const abandonUpstream = (): void => {
      if (endReason === null) endReason = 'client';
      upstream.abort(new Error('Client disconnected'));
    };
    // Before the reply stream opens, a client that goes away ends the request; after, its reply waits for a resume.
    let onClientGone: () => void = abandonUpstream;
    const detach = watchClientGone(c, () => onClientGone());
    const cleanup = (): void => {
      clearTimeout(stallTimer);
      detach();
    };

    let opened;
    try {
      opened = await entry.provider.open(providerReq, upstream.signal);
    } catch (e) {
      cleanup();
      await hold?.release({ forget: true });
      await unbind();
      if (endReason === 'stall') return jsonError(c, 503, 'UPSTREAM_STALL', STALL_MESSAGE);
      if (endReason === 'client') return jsonError(c, 503, 'CLIENT_CLOSED', 'The client closed the request');
      throw e;
    }
    if (!opened.ok) {
      cleanup();
      await hold?.release({ forget: true });
      await unbind();
      ctx.log(`stream-gpt: ${entry.info.provider} refused ${entry.upstreamModel}: HTTP ${opened.status} ${opened.error}`);
      const refusal = upstreamRefusal(opened);
      return jsonError(c, refusal.status, refusal.error, refusal.message);
    }
    const events = opened.events;

    // Everything the relay writes goes through the in-flight reply: to this client, and to a resumer if this
    // client goes away (s is the reply, not one connection).
    const s = replies.open(chargeKey, abandonUpstream);
    let client: ReplySink | null = null;
    // Web context named but not run here (docs/decisions.md): said in a header and in the metadata, never silent;
    // unless the caller says it searched or scraped first and sent the results (webContextIncluded, the engine).
    const webNamed = stripModelSuffix(req.model) !== req.model || req.transactionDetails?.linkupDepth !== undefined || (req.scrapedUrls?.length ?? 0) > 0;
    const webAsked = webNamed && req.webContextIncluded !== true;
    const headers = webAsked ? { ...STREAM_HEADERS, 'X-Parley-Web-Search': 'not-run' } : STREAM_HEADERS;
    const { sink, response } = openSink(c, () => client && s.detach(client), ctx.settings.clientTimeoutMs, headers);
    client = sink;
    onClientGone = () => s.detach(sink);
    void s.attach(sink);
    const relay = async (): Promise<void> => {
      let textChars = 0;
      let reasoningChars = 0;
      let inThink = false;
      let usage: { inputTokens: number; outputTokens: number } | null = null;
      let model = entry.upstreamModel;
      let failure: string | null = null;
      // A delta may end in the first half of a UTF-16 surrogate pair (an emoji split across chunks); hold that
      // half back and join it to the next delta, so the UTF-8 we send never contains a replacement character.
      let carry = '';
      let carryThink = false;
      const frame = new FrameEscaper();
      // The framed text of the events read so far and not yet written: the events of one network chunk (those the
      // source already holds, bufferedCount) go out as one write, not one write per delta.
      let pending = '';
      const ready = bufferedCount(events);
      const emit = (think: boolean, delta: string): void => {
        let t = delta;
        if (carry) {
          const held = carry;
          carry = '';
          if (carryThink === think) t = held + t;
          else emit(carryThink, '\uFFFD'); // the pair was never completed
        }
        const last = t.charCodeAt(t.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          carry = t.slice(-1);
          carryThink = think;
          t = t.slice(0, -1);
          if (t.length === 0) return;
        }
        if (think) reasoningChars += t.length;
        else textChars += t.length;
        // Model text is escaped so a marker inside it reads as text (src/protocol/stream.ts, FrameEscaper).
        if (think !== inThink) {
          pending += frame.flush() + (think ? THINK_OPEN : THINK_CLOSE);
          inThink = think;
        }
        pending += frame.take(t);
      };
      const flush = async (): Promise<void> => {
        if (pending.length === 0) return;
        const out = pending;
        pending = '';
        writing = true;
        try {
          await s.write(out);
        } finally {
          writing = false;
        }
        // Waiting on the client is not upstream silence: count from when the write went through.
        stallTimer.refresh();
      };
      try {
        for await (const ev of events) {
          stallTimer.refresh();
          if (ev.type === 'content' || ev.type === 'reasoning') {
            const text = budget === null ? ev.text : budget.take(ev.text, ev.type === 'content' ? ev.wholeTokens : undefined);
            if (text.length > 0) emit(ev.type === 'reasoning', text);
            if (budget?.exhausted) {
              // Past what was held: relay no more, and stop the upstream generating (and billing us) any further.
              if (endReason === null) endReason = 'limit';
              upstream.abort(new Error('The reply reached its held output budget'));
              break;
            }
          } else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
          else if (ev.type === 'model') model = ev.model;
          if (pending.length > 0 && ready() === 0) await flush();
        }
      } catch (e) {
        if (endReason === null) {
          if (e instanceof UpstreamStreamError) failure = e.message;
          else {
            ctx.log(`stream-gpt: relay failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
            failure = 'The model stream failed';
          }
        }
      } finally {
        cleanup();
      }
      if (carry) {
        const think = carryThink;
        carry = '';
        emit(think, '\uFFFD'); // a lone half at the very end: send the replacement character
      }
      pending += frame.flush() + (inThink ? THINK_CLOSE : '');
      await flush();

      const stalled = endReason === 'stall';
      const cut = endReason === 'limit' && budget !== null;
      const inputTokens = usage?.inputTokens ?? conversation.inputTokens;
      // A reply cut at its budget is charged for what was relayed, by the budget's own count (at most the hold).
      const outputTokens = cut ? budget.used : (usage?.outputTokens ?? Math.ceil((textChars + reasoningChars) / 4));
      // paymentSource is set when a balance paid (a settled hold): a free or uncharged reply has none.
      const meta: StreamMetadata = { cost: 0, inputTokens, outputTokens, isPartial: false, model };
      if (webAsked) meta.webNotice = WEB_NOT_RUN_NOTICE;
      if (stalled) {
        meta.error = STALL_MESSAGE;
        meta.isStreamStall = true;
        meta.isPartial = textChars > 0;
      } else if (failure !== null) {
        meta.error = failure;
        meta.isPartial = textChars > 0;
      } else if (cut) {
        // Cut at what was held: a usable partial reply, with a plain note of why.
        meta.error = replyLimitMessage(budget.maxTokens);
        meta.isPartial = textChars > 0;
      } else if (endReason === 'client') {
        // Stopped, or nobody resumed it in time: whatever resumes it later must not take it for a whole reply.
        meta.error = CUT_OFF_MESSAGE;
        meta.isPartial = textChars > 0;
      }

      // Charged unless the upstream stalled or nothing at all was produced (docs/gateway.md, "What is charged").
      if (!stalled && textChars + reasoningChars > 0) {
        if (hold !== null) {
          // Let the text written so far reach the socket before the database work of the settle (an in-memory PGlite
          // runs on this thread, db/pglite-thread.ts): a short reply's text must not wait for its own billing.
          await new Promise<void>((r) => setImmediate(r));
          // Settled once, at most what was held; a failed settle is a billing error (not charged).
          const settled = await hold.settle(replyCostMicro(entry.price as NonNullable<typeof entry.price>, inputTokens, outputTokens), { countReply: true });
          meta.cost = settled?.cost ?? 0;
          if (settled !== null) meta.paymentSource = settled.paymentSource;
          if (settled === null || settled.billingError) meta.billingError = true;
        } else {
          // A free reply moves no money; its $0 entry, which counts the reply, is written behind in a batch
          // (money/free-replies.ts).
          ctx.ledger.freeReplies.record(sessionId, chargeKey, note);
        }
      } else await hold?.release();
      // Written even after Stop or abandonment: a resume within the retention time reads it.
      await s.write(encodeMetadata(meta));
    };
    void relay()
      .catch(async (e: unknown) => {
        cleanup();
        ctx.log(`stream-gpt: relay crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        await hold?.release();
        return s.write(encodeMetadata({ error: 'Internal error', isPartial: false }));
      })
      .catch(() => {})
      .finally(() => replies.finish(chargeKey, s));
    return response;
  });

  app.all('/api/stream-gpt', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
