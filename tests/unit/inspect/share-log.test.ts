import { describe, expect, it } from 'vitest';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { conversationState, foldState, shareLog, slugsOf } from '../../../src/inspect';
import { inspectorLog } from './fixture';

const events = inspectorLog(600);
const slugs = [...new Set(events.flatMap((e) => slugsOf(e)))];

describe('shareLog: what a share link of one conversation carries', () => {
  it('folds to the same conversation and messages as the whole log, branches included', () => {
    const whole = foldState(events);
    for (const slug of slugs) {
      const shared = decodeLog(encodeLog(shareLog(events, slug), { exportedAt: 1 })).events;
      const a = conversationState(whole, slug);
      const b = conversationState(foldState(shared), slug);
      expect(b.conversation, slug).toEqual(a.conversation);
      expect(b.messages, slug).toEqual(a.messages);
    }
    const branched = events.find((e) => e.type === 'message.branched')!;
    expect(shareLog(events, slugsOf(branched)[0]!).map((e) => e.id)).toEqual(expect.arrayContaining(['x-b-1', 'x-b-2', 'x-b-3']));
  });

  it("carries none of the sharer's global events (preferences) nor other conversations", () => {
    const slug = slugs[0]!;
    const shared = shareLog(events, slug);
    expect(shared.map((e) => e.id)).not.toContain('x-pref-1');
    for (const e of shared) expect(slugsOf(e)).toContain(slug);
  });
});
