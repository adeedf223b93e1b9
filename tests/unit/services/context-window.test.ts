import { describe, expect, it } from 'vitest';
import { CONTEXT_SAFETY, DEFAULT_CONTEXT_LENGTH, fitContext, inputBudget, MAX_REQUEST_MESSAGES } from '../../../src/worker/rooms/replies/context-window';
import type { ChatMessage } from '../../../src/protocol/api';
import { countTokens, detectSentiment, IMAGE_TOKENS, messageTokens, promptTokens } from '../../../src/shared/tokens';

function conversation(n: number, chars = 40): ChatMessage[] {
  return Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `${i}`.padEnd(chars, 'x') }) as ChatMessage);
}
const system: ChatMessage = { role: 'system', content: 'Be brief.' };

describe('context window', () => {
  it('sends everything when it fits', () => {
    const history = conversation(9);
    const w = fitContext({ system: [system], history, contextLength: 128_000, maxTokens: 8192 });
    expect(w.omitted).toBe(0);
    expect(w.messages).toEqual([system, ...history]);
  });

  it('keeps the system prompt and the newest messages, leaving room for the reply', () => {
    const history = conversation(10_001, 400); // 10,001 messages of ~104 tokens each
    const w = fitContext({ system: [system], history, contextLength: 16_000, maxTokens: 4000 });
    expect(w.messages[0]).toBe(system);
    expect(w.messages.at(-1)).toBe(history.at(-1));
    expect(w.tokens).toBeLessThanOrEqual(inputBudget(16_000, 4000));
    expect(inputBudget(16_000, 4000)).toBe(Math.floor(12_000 * CONTEXT_SAFETY));
    expect(w.omitted + w.messages.length - 1).toBe(history.length);
    // The kept history is contiguous, the newest part, and starts at a user message.
    expect(w.messages.slice(1)).toEqual(history.slice(w.omitted));
    expect(w.messages[1]?.role).toBe('user');
  });

  it('a reply whose question failed is not sent, and is not counted as left out for room (issue 16 item 9)', () => {
    // A failed prompt is no history (it is marked hasError) while its partial reply is: the history opens with it.
    const history: ChatMessage[] = [
      { role: 'assistant', content: 'Partial answer to a failed question' },
      { role: 'user', content: 'Hello?' },
    ];
    const w = fitContext({ system: [system], history, contextLength: 128_000, maxTokens: 8192 });
    expect(w.messages).toEqual([system, history[1]]);
    expect(w.omitted).toBe(0);
  });

  it('never sends more than the gateway accepts (1,000 messages)', () => {
    const w = fitContext({ system: [system], history: conversation(5001, 1), contextLength: 10_000_000, maxTokens: 8192 });
    expect(w.messages.length).toBeLessThanOrEqual(MAX_REQUEST_MESSAGES);
    expect(w.omitted).toBeGreaterThanOrEqual(4001);
  });

  it('always sends the newest message, even alone over budget', () => {
    const huge: ChatMessage = { role: 'user', content: 'y'.repeat(400_000) };
    const w = fitContext({ system: [system], history: [...conversation(4), huge], contextLength: 8000, maxTokens: 1000 });
    expect(w.messages).toEqual([system, huge]);
    expect(w.omitted).toBe(4);
  });

  it('uses the default context length when the model has none, and keeps at most half of it for the reply', () => {
    expect(inputBudget(undefined, 0)).toBe(Math.floor(DEFAULT_CONTEXT_LENGTH * CONTEXT_SAFETY));
    expect(inputBudget(8000, 100_000)).toBe(Math.floor(4000 * CONTEXT_SAFETY));
  });
});

describe('token counts', () => {
  it('counts 85 tokens per inline image and characters / 4 for text', () => {
    expect(IMAGE_TOKENS).toBe(85);
    expect(promptTokens('abcdefgh')).toBe(2);
    expect(promptTokens([{ type: 'text', text: 'abcd' }, { type: 'image_url', image_url: { url: 'data:' } }, { type: 'image_url', image_url: { url: 'data:' } }])).toBe(1 + 170);
    const counts = countTokens([{ content: 'abcd' }, { content: 'abcdefgh' }], 'abcdefghijkl', 1, 8192);
    expect(counts).toEqual({ conversation: messageTokens({ content: 'abcd' }) + messageTokens({ content: 'abcdefgh' }), input: 3 + 85, total: counts.conversation + 88, maxTokens: 8192 });
    expect(countTokens([], '', 0, 10).input).toBe(0);
  });

  it('detects thanks in messages of at most 200 characters only', () => {
    expect(detectSentiment('Thanks!')).toBe('thankful');
    expect(detectSentiment('thank you so much, that worked')).toBe('thankful');
    expect(detectSentiment('Merci beaucoup')).toBe('thankful');
    expect(detectSentiment('What is the capital of France?')).toBeUndefined();
    expect(detectSentiment(`thanks ${'x'.repeat(194)}`)).toBeUndefined(); // 201 characters
    expect(detectSentiment(`thanks ${'x'.repeat(193)}`)).toBe('thankful'); // 200 characters
    expect(detectSentiment('thanksgiving dinner ideas')).toBeUndefined();
  });
});
