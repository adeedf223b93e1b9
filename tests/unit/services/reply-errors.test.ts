/** The failure branches of a chat reply (spec 000 section 8), run through the reply runner with a fake host. */
import { describe, expect, it } from 'vitest';
import type { NewEvent, ReplyFailedV1 } from '../../../src/events/catalogue';
import type { Notice } from '../../../src/protocol/engine';
import { encodeMetadata } from '../../../src/protocol/stream';
import { classifyModelError } from '../../../src/worker/infra/errors';
import { GatewayError } from '../../../src/worker/infra/gateway';
import { MODEL_ERROR, STREAM_ERROR } from '../../../src/shared/messages';
import { runReply, STREAM_BROKE, type LiveReply, type ReplyHost } from '../../../src/worker/rooms/replies/reply-runner';
import { ReplyStreamParser } from '../../../src/worker/rooms/replies/stream-parser';

function harness(currency: 'USD' | 'XNO' = 'XNO') {
  const events: NewEvent[] = [];
  const notices: Omit<Notice, 'id'>[] = [];
  let n = 0;
  const host: ReplyHost = {
    append: async (e) => void events.push(...e),
    publish: () => undefined,
    notify: (x) => void notices.push(x),
    newEventId: () => `e${++n}`,
    now: () => 1_000,
    currency: () => currency,
  };
  const reply: LiveReply = { messageId: 2, userMessageId: 1, slug: 's', requestId: 'r-1', parser: new ReplyStreamParser(), controller: new AbortController(), stoppedByUser: false };
  const failed = () => events.find((e) => e.type === 'reply.failed')?.payload as ReplyFailedV1 | undefined;
  return { host, reply, events, notices, failed };
}

const enc = new TextEncoder();
/** The parts one per read, then the end or (after they were read) the error. */
function streamOf(parts: string[], error?: Error): ReadableStream<Uint8Array> {
  const queue = [...parts];
  return new ReadableStream({
    pull(c) {
      const next = queue.shift();
      if (next !== undefined) c.enqueue(enc.encode(next));
      else if (error) c.error(error);
      else c.close();
    },
  });
}

describe('reply failures', () => {
  it("'No message was returned from the model' when nothing came back; the pending reply is deleted", async () => {
    const h = harness();
    await runReply(h.host, h.reply, async () => streamOf([encodeMetadata({ cost: 0, outputTokens: 0 })]));
    expect(h.failed()).toMatchObject({ error: STREAM_ERROR.noMessage, keepPartial: false });
    expect(h.notices[0]).toMatchObject({ title: 'No message was returned from the model', tone: 'orange', text: STREAM_ERROR.supportLine });
  });

  it("'No message content was returned from the model' when the model reasoned or produced tokens but no content", async () => {
    const h = harness();
    await runReply(h.host, h.reply, async () => streamOf(['<think>Let me see</think>', encodeMetadata({ cost: 0.001, outputTokens: 12 })]));
    expect(h.failed()).toMatchObject({ error: 'No message content was returned from the model', keepPartial: false });
    expect(h.notices[0]?.title).toBe('No message content was returned from the model');
  });

  it("'Failed to start stream' when the request gets no answer at all", async () => {
    const h = harness();
    await runReply(h.host, h.reply, async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(h.failed()).toMatchObject({ error: 'Failed to start stream', keepPartial: false });
    expect(h.notices[0]).toMatchObject({ title: 'Error sending message', text: 'Failed to start stream' });
  });

  it('a stream that breaks after text arrived is a partial reply, kept and marked', async () => {
    const h = harness();
    await runReply(h.host, h.reply, async () => streamOf(['The first half'], new TypeError('network error')));
    expect(h.failed()).toMatchObject({ error: STREAM_BROKE, keepPartial: true, text: 'The first half' });
    expect(h.failed()?.error).not.toContain('Could not reach the model provider');
  });

  it('the context memory 413 gives its notice with the estimated time and tokens, and a Resend action for the prompt', async () => {
    const h = harness();
    await runReply(h.host, h.reply, async () => {
      throw new GatewayError(413, { error: 'CONTEXT_MEMORY_INDEXING', message: 'Context memory is indexing 12,500 tokens, estimated time: 45 seconds' });
    });
    const notice = h.notices[0];
    expect(notice?.title).toBe('Context Memory is indexing your conversation');
    expect(notice?.text).toContain('12,500 tokens');
    expect(notice?.text).toContain('45 seconds');
    expect(notice?.action).toEqual({ label: 'Resend', kind: 'resend', slug: 's', messageId: 1 });
    expect(h.failed()).toMatchObject({ userMessageId: 1, keepPartial: false });
  });

  it("the 402 notice shows the gateway's required amount in the currency the user pays in", async () => {
    const body = { error: 'INSUFFICIENT_BALANCE', message: 'Insufficient balance', requiredBalance: '0.0123456789', requiredUsd: '0.004501' };
    const usd = harness('USD');
    await runReply(usd.host, usd.reply, async () => {
      throw new GatewayError(402, body);
    });
    expect(usd.notices[0]).toMatchObject({ title: MODEL_ERROR.insufficientBalanceTitle, text: expect.stringContaining('needs a balance of $0.0046.') });
    const xno = harness('XNO');
    await runReply(xno.host, xno.reply, async () => {
      throw new GatewayError(402, body);
    });
    expect(xno.notices[0]?.text).toContain('0.012345 XNO');
    // Without the USD amount (an older gateway) the nano amount is shown.
    expect(classifyModelError({ status: 402, body: { requiredBalance: '1.5' }, currency: 'USD' }).text).toContain('1.5 XNO');
  });

  it("one model of a multi-model request keeps its failure on its own message (ownError)", async () => {
    const h = harness();
    h.reply.ownError = true;
    await runReply(h.host, h.reply, async () => streamOf([encodeMetadata({ error: 'Overloaded', isPartial: false })]));
    expect(h.failed()).toMatchObject({ ownError: true, error: 'Overloaded' });
  });
});
