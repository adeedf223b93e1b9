import { describe, expect, it } from 'vitest';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { conversationState, foldState, redactEvent, redactText, slugsOf, trimLog } from '../../../src/inspect';
import { promptText } from '../../../src/projections/projection';
import { inspectorLog } from './fixture';

const events = inspectorLog(600);
const slugs = [...new Set(events.flatMap((e) => slugsOf(e)))];

describe('trimLog: a repro log of one conversation', () => {
  it('replays to the same state of that conversation as the whole log, for every conversation', () => {
    const whole = foldState(events);
    expect(slugs.length).toBeGreaterThan(5);
    for (const slug of slugs) {
      const trimmed = trimLog(events, slug);
      expect(trimmed.length).toBeLessThan(events.length);
      // Through the file format too: what --trim writes is what a bug report carries.
      const reread = decodeLog(encodeLog(trimmed, { exportedAt: 1 })).events;
      expect(conversationState(foldState(reread), slug), slug).toEqual(conversationState(whole, slug));
    }
  });

  it('keeps the global events and the conversation queue and branch', () => {
    const branched = events.find((e) => e.type === 'message.branched')!;
    const queued = events.find((e) => e.type === 'queue.messageAdded')!;
    expect(trimLog(events, slugsOf(branched)[0]!).map((e) => e.id)).toEqual(expect.arrayContaining(['x-pref-1', 'x-pref-2', 'x-b-1', 'x-b-2', 'x-b-3']));
    const q = conversationState(foldState(trimLog(events.slice(0, events.indexOf(queued) + 1), slugsOf(queued)[0]!)), slugsOf(queued)[0]!);
    expect(q.queue.map((e) => e.message.id)).toEqual(['qm-1']);
  });

  it('drops events of other conversations, streaming checkpoints included', () => {
    const slug = slugs[0]!;
    for (const e of trimLog(events, slug)) {
      const s = slugsOf(e);
      expect(s.length === 0 || s.includes(slug)).toBe(true);
    }
    const checkpoint = events.find((e) => e.type === 'reply.checkpointed' && e.payload.conversationSlug !== slug)!;
    expect(trimLog(events, slug)).not.toContain(checkpoint);
  });
});

describe('redaction', () => {
  it('replaces letters and digits with x, keeping length, spaces and punctuation', () => {
    expect(redactText('Hello, World 42!\nÇa va? 😀')).toBe('xxxxx, xxxxx xx!\nxx xx? xx');
    expect(redactText('')).toBe('');
  });

  it('redacts every message text, name and thinking, keeps ids, slugs, models and lengths; the log still decodes', () => {
    const redacted = events.map(redactEvent);
    const text = encodeLog(redacted, { exportedAt: 1 });
    const back = decodeLog(text).events;
    const before = foldState(events);
    const after = foldState(back);
    for (const slug of slugs) {
      const a = conversationState(before, slug);
      const b = conversationState(after, slug);
      expect(b.messages.map((m) => [m.id, m.model, m.status, m.conversationSlug])).toEqual(a.messages.map((m) => [m.id, m.model, m.status, m.conversationSlug]));
      expect(b.messages.map((m) => promptText(m.prompt).length)).toEqual(a.messages.map((m) => promptText(m.prompt).length));
      expect(b.conversation?.name.length).toBe(a.conversation?.name.length);
      for (const m of b.messages) expect(promptText(m.prompt)).toMatch(/^[x\s!-/:-@[-`{-~]*$/);
    }
    // None of the sample's words survive anywhere in the file.
    for (const word of ['replay', 'wallet', 'quickly', 'another answer', 'send this after the reply']) expect(text).not.toContain(word);
    expect(text).not.toMatch(/"prompt":"[^"]*[a-wyz]/);
  });

  it('keeps image parts of a multi-part prompt', () => {
    const withImage = events.find((e) => e.type === 'message.added' && Array.isArray(e.payload.message.prompt))!;
    const r = redactEvent(withImage) as typeof withImage & { type: 'message.added' };
    const parts = r.payload.message.prompt as { type: string; image_url?: { url: string } }[];
    const orig = (withImage as typeof r).payload.message.prompt as typeof parts;
    expect(parts.map((p) => p.type)).toEqual(orig.map((p) => p.type));
    expect(parts.find((p) => p.type === 'image_url')?.image_url?.url).toBe(orig.find((p) => p.type === 'image_url')?.image_url?.url);
  });
});
