import { describe, expect, it } from 'vitest';
import { composeOfflineReply, evaluateArithmetic, OfflineProvider, tokenize } from '../../../src/server/providers/offline';
import type { ProviderEvent } from '../../../src/server/providers/types';
import { chatPayload } from '../../../src/server/body/chat-payload';

const user = (content: string) => [{ role: 'user' as const, content }];

async function collect(p: OfflineProvider, text: string, signal = new AbortController().signal): Promise<ProviderEvent[]> {
  const r = await p.open({ model: 'parley-offline', conversation: chatPayload(user(text)) }, signal);
  if (!r.ok) throw new Error('refused');
  const out: ProviderEvent[] = [];
  for await (const e of r.events) out.push(e);
  return out;
}

describe('offline engine', () => {
  it('is deterministic and describes the prompt in Markdown (quote, list, code block)', () => {
    const a = composeOfflineReply(user('Tell me about apples. Apples are red? Apples grow on trees.'));
    const b = composeOfflineReply(user('Tell me about apples. Apples are red? Apples grow on trees.'));
    expect(a).toEqual(b);
    expect(a.thinking).toBeNull();
    expect(a.text).toContain('> Tell me about apples.');
    expect(a.text).toContain('- **Words:** 11');
    expect(a.text).toContain('- **Sentences:** 3');
    expect(a.text).toContain('- **Questions:** 1');
    expect(a.text).toContain('`apples` ×3');
    expect(a.text).toMatch(/```json\n[\s\S]+\n```/);
    expect(a.text).not.toContain('$$');
  });

  it('writes math with $...$ when the prompt is about math, evaluating arithmetic', () => {
    const r = composeOfflineReply(user('Can you do some math: (2 + 3) * 4 and 2^10?'));
    expect(r.text).toContain('### Math');
    expect(r.text).toContain('$(2 + 3) \\times 4 = 20$');
    expect(r.text).toContain('$2^10 = 1024$');
    expect(r.text).toMatch(/\$\$\n\\sum_/);
    expect(evaluateArithmetic('1/0')).toBe(Number.POSITIVE_INFINITY);
    expect(evaluateArithmetic('2 +')).toBeNull();
    expect(evaluateArithmetic('-3 + 5 * 2')).toBe(7);
  });

  it('writes code in the language asked for', () => {
    expect(composeOfflineReply(user('write a python function')).text).toContain('```python\ndef count_words');
    expect(composeOfflineReply(user('show me rust code')).text).toContain('```rust\n');
    expect(composeOfflineReply(user('write some code')).text).toContain('```ts\n');
  });

  it('thinks when asked to think or reason', () => {
    expect(composeOfflineReply(user('Please reason about this')).thinking).toMatch(/steps/);
    expect(composeOfflineReply(user('think step by step')).thinking).not.toBeNull();
  });

  it('copes with images only, empty text and multi-turn conversations', () => {
    const img = composeOfflineReply([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] }]);
    expect(img.text).toContain('only an image');
    const multi = composeOfflineReply([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'two' },
    ]);
    expect(multi.text).toContain('your message 2');
  });

  it('tokenize keeps every character', () => {
    for (const t of ['a b  c\n\nd ', '  lead', '', 'x']) expect(tokenize(t).join('')).toBe(t);
  });

  it('streams token by token with the configured delay, thinking first, then usage', async () => {
    const p = new OfflineProvider({ tokenDelayMs: 2 });
    const t0 = Date.now();
    const events = await collect(p, 'think: hello world');
    const contents = events.filter((e) => e.type === 'content');
    const reasoning = events.filter((e) => e.type === 'reasoning');
    expect(reasoning.length).toBeGreaterThan(5);
    expect(contents.length).toBeGreaterThan(20);
    expect(events.findIndex((e) => e.type === 'content')).toBeGreaterThan(events.findIndex((e) => e.type === 'reasoning'));
    expect(events.at(-1)?.type).toBe('usage');
    expect(Date.now() - t0).toBeGreaterThanOrEqual((contents.length + reasoning.length) * 2 * 0.8);
  });

  it('stops when aborted', async () => {
    const p = new OfflineProvider({ tokenDelayMs: 20 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop')), 50);
    await expect(collect(p, 'hello there', ac.signal)).rejects.toThrow();
  });
});
