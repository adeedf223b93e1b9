import { describe, expect, it } from 'vitest';
import {
  classifyModelError,
  failedChatText,
  formatAmount,
  streamFailureText,
} from '../../../src/worker/infra/errors';

describe('classifyModelError: spec 000 section 8, in order', () => {
  describe('1. local database', () => {
    it.each([
      'Failed to open the local database',
      'IndexedDB error: QuotaExceededError',
      'DexieError: DatabaseClosedError',
      'indexeddb is not available',
    ])('%s → Local storage unavailable, reload, 20 s', (message) => {
      expect(classifyModelError({ message })).toEqual({
        title: 'Local storage unavailable',
        text: expect.stringMatching(/reload/i) as unknown as string,
        tone: 'red',
        durationMs: 20_000,
        action: { label: 'Reload page', kind: 'reload' },
      });
    });

    it('wins over every later rule (a 400, a 402, an NSFW code)', () => {
      expect(classifyModelError({ status: 400, message: 'IndexedDB write failed' }).title).toBe('Local storage unavailable');
      expect(classifyModelError({ status: 402, message: 'Dexie transaction aborted', body: { requiredBalance: '1' } }).title).toBe(
        'Local storage unavailable',
      );
      expect(classifyModelError({ code: 'REPLICATE_NSFW_ERROR', message: 'IndexedDB' }).title).toBe('Local storage unavailable');
      expect(classifyModelError({ status: 500, body: { error: 'X', message: 'local database closed' } }).title).toBe(
        'Local storage unavailable',
      );
    });
  });

  describe('2. REPLICATE_NSFW_ERROR', () => {
    it('→ Content Flagged, 15 s', () => {
      expect(classifyModelError({ status: 400, code: 'REPLICATE_NSFW_ERROR', message: 'NSFW' })).toMatchObject({
        title: 'Content Flagged',
        durationMs: 15_000,
      });
      expect(classifyModelError({ status: 500, body: { error: 'REPLICATE_NSFW_ERROR', message: 'blocked' } }).title).toBe('Content Flagged');
    });

    it('wins over rule 3 (a banned-content code at the same time)', () => {
      expect(classifyModelError({ code: 'REPLICATE_NSFW_ERROR', body: { code: 'BANNED_CONTENT' } }).title).toBe('Content Flagged');
    });
  });

  describe('3. content policy / banned content / safety block', () => {
    it('BANNED_CONTENT → Content Not Allowed, 300 s', () => {
      expect(classifyModelError({ status: 400, code: 'BANNED_CONTENT' })).toMatchObject({
        title: 'Content Not Allowed',
        durationMs: 300_000,
      });
    });

    it('a message about a banned word → Content Not Allowed', () => {
      expect(classifyModelError({ status: 400, message: 'Prompt contains a banned word: foo' }).title).toBe('Content Not Allowed');
    });

    it('CONTENT_POLICY_VIOLATION → Content Flagged as Inappropriate, 300 s', () => {
      expect(classifyModelError({ status: 400, code: 'CONTENT_POLICY_VIOLATION' })).toMatchObject({
        title: 'Content Flagged as Inappropriate',
        durationMs: 300_000,
      });
      expect(classifyModelError({ status: 422, body: { error: { code: 'CONTENT_POLICY_VIOLATION', message: 'no' } } }).title).toBe(
        'Content Flagged as Inappropriate',
      );
    });

    it('a message about a safety block → Content Flagged as Inappropriate', () => {
      expect(classifyModelError({ message: 'Request was blocked by the safety system' }).title).toBe('Content Flagged as Inappropriate');
      expect(classifyModelError({ message: 'SAFETY_BLOCK' }).title).toBe('Content Flagged as Inappropriate');
    });

    it('banned content wins over a content-policy code', () => {
      expect(classifyModelError({ code: 'CONTENT_POLICY_VIOLATION', body: { code: 'BANNED_CONTENT' } }).title).toBe('Content Not Allowed');
    });

    it('the uppercase code is not the 400 provider code content_policy_violation', () => {
      expect(classifyModelError({ status: 400, code: 'content_policy_violation' }).title).toBe("The model didn't accept your prompt");
    });

    it('wins over rule 5 (a 413 about indexing that mentions a safety block)', () => {
      expect(classifyModelError({ status: 413, message: 'Context memory indexing; blocked by safety filter' }).title).toBe(
        'Content Flagged as Inappropriate',
      );
    });
  });

  describe('4. flagged-content wording', () => {
    it.each(['Your video: content flagged as inappropriate', 'NSFW content detected in output', 'The prompt has Inappropriate Content'])(
      '%s → the video-flagged notice',
      (message) => {
        expect(classifyModelError({ status: 500, message })).toMatchObject({
          title: 'Content Flagged as Inappropriate',
          durationMs: 300_000,
        });
      },
    );

    it('wins over rule 6', () => {
      expect(classifyModelError({ message: 'inappropriate content, 9 tokens which exceeds the max limit of 5' }).title).toBe(
        'Content Flagged as Inappropriate',
      );
    });
  });

  describe('5. 413 context memory indexing', () => {
    it('→ the indexing notice with token count and estimated time parsed, telling to use Resend', () => {
      const n = classifyModelError({
        status: 413,
        body: { error: 'CONTEXT_MEMORY_INDEXING', message: 'Context memory is indexing your conversation (48213 tokens). Estimated time: 30 seconds.' },
      });
      expect(n.title).toBe('Context Memory is indexing your conversation');
      expect(n.text).toContain('48,213 tokens');
      expect(n.text).toContain('30 seconds');
      expect(n.text).toContain('Resend');
      expect(n.tone).toBe('blue');
      expect(n.durationMs).toBe(20_000);
    });

    it('parses other wordings ("about 2 minutes", "12.5k tokens")', () => {
      const n = classifyModelError({ status: 413, message: 'Still indexing 12.5k tokens, about 2 minutes remaining' });
      expect(n.text).toContain('12,500 tokens');
      expect(n.text).toContain('2 minutes');
    });

    it('without numbers still tells the user to Resend', () => {
      const n = classifyModelError({ status: 413, message: 'Context memory busy' });
      expect(n.title).toBe('Context Memory is indexing your conversation');
      expect(n.text).toContain('Resend');
    });

    it('needs status 413 and the wording', () => {
      expect(classifyModelError({ status: 413, message: 'Payload too large' }).title).toBe('Error sending message');
      expect(classifyModelError({ status: 500, message: 'Context memory is indexing' }).title).toBe('Error sending message');
    });

    it("the gateway's CONTEXT_TOO_LONG (a provider's 413) whatever the provider's wording; never its own PAYLOAD_TOO_LARGE", () => {
      const n = classifyModelError({ status: 413, body: { error: 'CONTEXT_TOO_LONG', message: 'Request too large: 250000 tokens requested' } });
      expect(n.title).toBe('Context Memory is indexing your conversation');
      expect(n.text).toBe('Indexing 250,000 tokens. When it has finished, press Resend to send your message.');
      expect(classifyModelError({ status: 413, body: { error: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 26214400 bytes' } }).title).toBe(
        'Error sending message',
      );
    });

    it('wins over rule 6', () => {
      expect(classifyModelError({ status: 413, message: 'Context memory indexing: 9 tokens which exceeds the max limit of 5' }).title).toBe(
        'Context Memory is indexing your conversation',
      );
    });
  });

  describe('6. which exceeds the max limit of', () => {
    it('→ Too many input tokens with guidance and the numbers', () => {
      const n = classifyModelError({ status: 400, message: 'Input token count 150000 which exceeds the max limit of 128000' });
      expect(n.title).toBe('Too many input tokens');
      expect(n.text).toContain('150,000');
      expect(n.text).toContain('128,000');
      expect(n.text).toMatch(/model/);
      expect(n.tone).toBe('red');
    });

    it('wins over the status rules (a 402)', () => {
      expect(classifyModelError({ status: 402, message: 'prompt which exceeds the max limit of 4096' }).title).toBe('Too many input tokens');
    });
  });

  describe('by status', () => {
    it('400 with an NSFW image message → Content Flagged', () => {
      expect(classifyModelError({ status: 400, message: 'NSFW image detected' })).toMatchObject({ title: 'Content Flagged', durationMs: 15_000 });
    });

    it('400 region_unavailable → Gemini is not supported in your region', () => {
      expect(classifyModelError({ status: 400, code: 'region_unavailable', message: 'User location is not supported' }).title).toBe(
        'Gemini is not supported in your region',
      );
      expect(classifyModelError({ status: 400, body: { error: { code: 'region_unavailable', message: 'x' } } }).title).toBe(
        'Gemini is not supported in your region',
      );
    });

    it("400 content_policy_violation → The model didn't accept your prompt (not charged)", () => {
      const n = classifyModelError({ status: 400, body: { error: { type: 'content_policy_violation', message: 'refused' } } });
      expect(n.title).toBe("The model didn't accept your prompt");
      expect(n.text).toMatch(/not been charged/);
    });

    it('400 NSFW wins over the provider codes', () => {
      expect(classifyModelError({ status: 400, code: 'region_unavailable', message: 'nsfw' }).title).toBe('Content Flagged');
    });

    it('400 otherwise → An error occurred with the message, or An unknown error occurred.', () => {
      expect(classifyModelError({ status: 400, message: 'Bad temperature' })).toMatchObject({ title: 'An error occurred', text: 'Bad temperature', tone: 'red' });
      expect(classifyModelError({ status: 400, body: { error: 'BAD_REQUEST', message: 'Invalid model' } }).text).toBe('Invalid model');
      expect(classifyModelError({ status: 400 })).toMatchObject({ title: 'An error occurred', text: 'An unknown error occurred.' });
    });

    it('402 → Insufficient balance with the required amount in nano and a Go to wallet action', () => {
      const n = classifyModelError({ status: 402, body: { error: 'INSUFFICIENT_BALANCE', message: 'x', requiredBalance: '0.0123456789' } });
      expect(n.title).toBe('Insufficient balance');
      expect(n.text).toContain('0.012345 XNO');
      expect(n.action).toEqual({ label: 'Go to wallet', kind: 'deposit' });
      expect(n.tone).toBe('red');
    });

    it('402 for a user of dollars → the hold in dollars, rounded up to what they must have, and what a hold is (issue 16 item 4)', () => {
      const n = classifyModelError({ status: 402, body: { error: 'INSUFFICIENT_BALANCE', message: 'x', requiredBalance: '0.123147', requiredUsd: '0.123147' }, currency: 'USD' });
      expect(n.text).toBe(
        'This request needs a balance of $0.13. A paid reply holds the cost of the longest reply it could write, and returns the unused part when it ends. Add funds to your balance and try again.',
      );
    });

    it("402 FREE_LIMIT_REACHED (flux-schnell's free uses spent) → the gateway's message, and the Deposit dialog opens at once", () => {
      const message = 'Your 10 free flux-schnell images for today are used up. Add funds to keep generating.';
      const n = classifyModelError({ status: 402, code: 'FREE_LIMIT_REACHED', message, body: { error: 'FREE_LIMIT_REACHED', message }, currency: 'USD' });
      expect(n).toMatchObject({ title: 'Free images used up for today', text: message, tone: 'orange' });
      expect(n.action).toEqual({ label: 'Deposit', kind: 'depositNow' });
    });

    it('402 from a JSON text body, and without an amount', () => {
      expect(classifyModelError({ status: 402, body: '{"error":"INSUFFICIENT_BALANCE","message":"m","requiredBalance":"2.5"}' }).text).toContain('2.5 XNO');
      const n = classifyModelError({ status: 402 });
      expect(n.text).toBe('Add funds to your balance and try again.');
      expect(n.action).toEqual({ label: 'Go to wallet', kind: 'deposit' });
    });

    it('403, 429, 503', () => {
      expect(classifyModelError({ status: 403 }).title).toBe('There was an issue talking with the model');
      expect(classifyModelError({ status: 429, message: 'rate limited' }).title).toBe('The model temporarily cannot accept any more requests');
      expect(classifyModelError({ status: 503 }).title).toBe('Model is temporarily not responding');
    });

    it('other → Error sending message', () => {
      expect(classifyModelError({ status: 500, message: 'Upstream exploded' })).toMatchObject({ title: 'Error sending message', text: 'Upstream exploded' });
      expect(classifyModelError({ message: 'Failed to fetch' }).title).toBe('Error sending message');
      expect(classifyModelError({})).toMatchObject({ title: 'Error sending message', text: 'An unknown error occurred.' });
    });

    it('only the catalogue durations are used, and only the reload/wallet notices carry actions', () => {
      const inputs = [
        { message: 'IndexedDB' },
        { code: 'REPLICATE_NSFW_ERROR' },
        { code: 'BANNED_CONTENT' },
        { code: 'CONTENT_POLICY_VIOLATION' },
        { message: 'nsfw content detected' },
        { status: 413, message: 'indexing' },
        { message: 'which exceeds the max limit of 1' },
        { status: 400 },
        { status: 402 },
        { status: 403 },
        { status: 429 },
        { status: 503 },
        { status: 500 },
      ];
      for (const input of inputs) {
        const n = classifyModelError(input);
        expect([5_000, 15_000, 20_000, 300_000]).toContain(n.durationMs);
        if (n.action) expect(['Local storage unavailable', 'Insufficient balance']).toContain(n.title);
      }
    });
  });
});

describe('formatAmount', () => {
  it('floors to 6 decimals', () => {
    expect(formatAmount('1.23456789')).toBe('1.234567');
    expect(formatAmount('2')).toBe('2');
    expect(formatAmount('0.100000')).toBe('0.1');
    expect(formatAmount(0.5)).toBe('0.5');
    expect(formatAmount('0.0000001')).toBe('0.000001');
    expect(formatAmount('abc')).toBeNull();
    expect(formatAmount(undefined)).toBeNull();
  });
});

describe('streamFailureText', () => {
  it("uses the server's error.message, then message, then 'Failed to start stream'", () => {
    expect(streamFailureText({ error: { message: 'Upstream down' }, message: 'other' })).toBe('Upstream down');
    expect(streamFailureText({ error: 'MODEL_UNAVAILABLE', message: 'Model unavailable' })).toBe('Model unavailable');
    expect(streamFailureText('{"message":"from text"}')).toBe('from text');
    expect(streamFailureText({})).toBe('Failed to start stream');
    expect(streamFailureText(null)).toBe('Failed to start stream');
    expect(streamFailureText('')).toBe('Failed to start stream');
    expect(streamFailureText(undefined, { multi: true })).toBe('Failed to start multi-model stream');
  });
});

describe('failedChatText', () => {
  it("falls back to 'There was an issue generating your response. Please try again'", () => {
    expect(failedChatText('Stream stalled')).toBe('Stream stalled');
    expect(failedChatText(new Error('boom'))).toBe('boom');
    expect(failedChatText({ message: 'obj' })).toBe('obj');
    expect(failedChatText()).toBe('There was an issue generating your response. Please try again');
    expect(failedChatText(new Error(''))).toBe('There was an issue generating your response. Please try again');
    expect(failedChatText('  ')).toBe('There was an issue generating your response. Please try again');
  });
});
