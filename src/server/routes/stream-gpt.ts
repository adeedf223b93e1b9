/**
 * POST /api/stream-gpt (spec 000 section 7): validates, checks the balance for paid models, opens the provider
 * stream and relays it in Parley's framing (src/protocol/stream.ts, docs/protocol.md):
 *
 *   reply text as plain UTF-8 text, reasoning inside <think>...</think>, and always a final
 *   <metadata>{cost, paymentSource, inputTokens, outputTokens, isPartial, model, ...}</metadata>.
 *
 * Each delta is written as it arrives; nothing is buffered. The reply is charged once (idempotency key =
 * requestId), after the stream ends and before the metadata tag, so the metadata reports what was charged.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { StreamGptRequestSchema } from '../../protocol/api';
import { encodeMetadata, THINK_CLOSE, THINK_OPEN, type PaymentSource, type StreamMetadata } from '../../protocol/stream';
import { describeIssues, jsonError, readJson, type AppEnv, type RouteContext } from '../context';
import type { ChargeResult } from '../ledger/ledger';
import {
  formatNanoRawCeil,
  PAID_THRESHOLD_NANO_RAW,
  PAID_THRESHOLD_USD_MICRO,
  replyCostMicro,
  usdMicroToNanoRaw,
} from '../money';
import { estimateInputTokens } from '../providers/offline';
import { UpstreamStreamError, type ProviderChatRequest } from '../providers/types';
import type { Context } from 'hono';
import type { ReplySink } from './reply-sink';
import { ReplyRegistry } from './reply-registry';
import { openSink, registerReplyRoutes, replyKey, watchClientGone } from './stream-resume';

export const STALL_MESSAGE = 'Model stopped responding';
export const CUT_OFF_MESSAGE = 'The reply was cut off before it finished: its connection was lost or it was stopped.';

/** Upstream statuses passed through as they are; any other upstream failure is 502. */
const PASS_THROUGH = new Set([400, 402, 403, 429, 503]);

export function mapUpstreamStatus(status: number): ContentfulStatusCode {
  return PASS_THROUGH.has(status) ? (status as ContentfulStatusCode) : 502;
}

/** Output tokens assumed for the 402 estimate when the request sets no maxTokens. */
const ESTIMATE_OUTPUT_TOKENS = 1000;

function paymentSourceOf(r: ChargeResult): PaymentSource {
  if (r.source === 'nano') return 'nano';
  if (r.source === 'mixed') return r.chargedUsdMicro * 2n >= r.chargedUsdValueMicro ? 'USD' : 'nano';
  if (r.source === 'USD') return 'USD';
  return r.balance.usdMicro > 0n || r.balance.nanoRaw === 0n ? 'USD' : 'nano';
}

export function registerStreamGptRoute(app: Hono<AppEnv>, ctx: RouteContext): void {
  const replies = new ReplyRegistry(ctx.settings.resumeGraceMs);
  registerReplyRoutes(app, ctx, replies);

  app.post('/api/stream-gpt', async (c) => {
    const sessionId = c.get('sessionId');
    const body = await readJson(c, ctx.settings.maxBodyBytes);
    if (!body.ok) return body.response;
    const parsed = StreamGptRequestSchema.safeParse(body.value);
    if (!parsed.success) return jsonError(c, 400, 'BAD_REQUEST', `Invalid request: ${describeIssues(parsed.error.issues)}`);
    const req = parsed.data;
    const entry = ctx.catalogue.resolve(req.model);
    if (!entry) return jsonError(c, 400, 'UNKNOWN_MODEL', `Unknown model '${req.model}'; see GET /api/models`);

    if (entry.price !== null) {
      const bal = await ctx.ledger.balance(sessionId);
      if (bal.usdMicro <= PAID_THRESHOLD_USD_MICRO && bal.nanoRaw <= PAID_THRESHOLD_NANO_RAW) {
        const estimate = replyCostMicro(entry.price, estimateInputTokens(req.messages), req.maxTokens ?? ESTIMATE_OUTPUT_TOKENS);
        const raw = usdMicroToNanoRaw(estimate, ctx.ledger.nanoPriceUsdMicro);
        const required = raw > PAID_THRESHOLD_NANO_RAW ? raw : PAID_THRESHOLD_NANO_RAW;
        return jsonError(
          c,
          402,
          'INSUFFICIENT_BALANCE',
          `Insufficient balance: ${entry.info.name} is a paid model and needs a balance above 0.00001 (USD or nano)`,
          { requiredBalance: formatNanoRawCeil(required) },
        );
      }
    }

    const providerReq: ProviderChatRequest = { model: entry.upstreamModel, messages: req.messages };
    if (req.maxTokens !== undefined) providerReq.maxTokens = req.maxTokens;
    if (req.temperature !== undefined) providerReq.temperature = req.temperature;
    const chargeKey = replyKey(sessionId, req.requestId ?? randomUUID());

    // One controller for the upstream request; aborted on stall, on Stop, or when nobody resumes a lost reply.
    const upstream = new AbortController();
    let endReason: 'stall' | 'client' | null = null;
    const stallTimer = setTimeout(() => {
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
      if (endReason === 'stall') return jsonError(c, 503, 'UPSTREAM_STALL', STALL_MESSAGE);
      if (endReason === 'client') return jsonError(c, 503, 'CLIENT_CLOSED', 'The client closed the request');
      throw e;
    }
    if (!opened.ok) {
      cleanup();
      ctx.log(`stream-gpt: ${entry.info.provider} refused ${entry.upstreamModel}: HTTP ${opened.status} ${opened.error}`);
      return jsonError(c, mapUpstreamStatus(opened.status), opened.error, opened.message);
    }
    const events = opened.events;

    // Everything the relay writes goes through the in-flight reply: to this client, and to a resumer if this
    // client goes away (s is the reply, not one connection).
    const s = replies.open(chargeKey, abandonUpstream);
    let client: ReplySink | null = null;
    const { sink, response } = openSink(c, () => client && s.detach(client));
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
      const emit = async (think: boolean, delta: string): Promise<void> => {
        let t = delta;
        if (carry) {
          const held = carry;
          carry = '';
          if (carryThink === think) t = held + t;
          else await emit(carryThink, '\uFFFD'); // the pair was never completed
        }
        const last = t.charCodeAt(t.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          carry = t.slice(-1);
          carryThink = think;
          t = t.slice(0, -1);
          if (t.length === 0) return;
        }
        if (think) {
          reasoningChars += t.length;
          if (!inThink) {
            inThink = true;
            await s.write(THINK_OPEN + t);
          } else await s.write(t);
        } else {
          textChars += t.length;
          if (inThink) {
            inThink = false;
            await s.write(THINK_CLOSE + t);
          } else await s.write(t);
        }
      };
      try {
        for await (const ev of events) {
          stallTimer.refresh();
          if (ev.type === 'content') await emit(false, ev.text);
          else if (ev.type === 'reasoning') await emit(true, ev.text);
          else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
          else if (ev.type === 'model') model = ev.model;
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
        await emit(think, '\uFFFD'); // a lone half at the very end: send the replacement character
      }
      if (inThink) await s.write(THINK_CLOSE);

      const stalled = endReason === 'stall';
      const inputTokens = usage?.inputTokens ?? estimateInputTokens(req.messages);
      const outputTokens = usage?.outputTokens ?? Math.ceil((textChars + reasoningChars) / 4);
      const meta: StreamMetadata = { cost: 0, paymentSource: 'USD', inputTokens, outputTokens, isPartial: false, model };
      if (stalled) {
        meta.error = STALL_MESSAGE;
        meta.isStreamStall = true;
        meta.isPartial = textChars > 0;
      } else if (failure !== null) {
        meta.error = failure;
        meta.isPartial = textChars > 0;
      } else if (endReason === 'client') {
        // Stopped, or nobody resumed it in time: whatever resumes it later must not take it for a whole reply.
        meta.error = CUT_OFF_MESSAGE;
        meta.isPartial = textChars > 0;
      }

      // Charged unless the upstream stalled or nothing at all was produced (docs/gateway.md, "What is charged").
      if (!stalled && textChars + reasoningChars > 0) {
        // Let the text written so far reach the socket before the database work of the charge (PGlite runs on
        // this thread): a short reply's first token must not wait for its own billing.
        await new Promise<void>((r) => setImmediate(r));
        const costMicro = entry.price !== null ? replyCostMicro(entry.price, inputTokens, outputTokens) : 0n;
        try {
          const r = await ctx.ledger.charge(sessionId, {
            key: chargeKey,
            usdMicro: costMicro,
            onShortfall: 'drain',
            countReply: true,
            note: `stream-gpt ${entry.info.id}`,
          });
          meta.cost = Number(r.chargedUsdValueMicro) / 1e6;
          meta.paymentSource = paymentSourceOf(r);
          if (r.status !== 'applied') meta.billingError = true;
        } catch (e) {
          ctx.log(`stream-gpt: charge failed for ${sessionId}: ${e instanceof Error ? e.message : String(e)}`);
          meta.billingError = true;
        }
      }
      // Written even after Stop or abandonment: a resume within the retention time reads it.
      await s.write(encodeMetadata(meta));
    };
    void relay()
      .catch((e: unknown) => {
        cleanup();
        ctx.log(`stream-gpt: relay crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        return s.write(encodeMetadata({ error: 'Internal error', isPartial: false }));
      })
      .catch(() => {})
      .finally(() => replies.finish(chargeKey, s));
    return response;
  });

  app.all('/api/stream-gpt', (c) => jsonError(c, 405, 'METHOD_NOT_ALLOWED', 'Use POST'));
}
