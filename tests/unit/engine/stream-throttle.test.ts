/**
 * Spec 000 section 9: stream text updates are throttled to 150 ms. A reply streams from the in-process gateway's
 * offline model in real time (a token every 40 ms) while the engine's throttle runs on a fake clock: the page gets
 * the reply's text once as it starts, then nothing until 150 ms of that clock have passed, then the newest text.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import type { ConversationUpdate, LiveMessageText } from '../../../src/protocol/engine-conversations';
import { useTestGateway } from './test-gateway';

const { newEngine } = useTestGateway({ PARLEY_OFFLINE_TOKEN_DELAY_MS: '40' });

describe('stream text updates (spec 000 section 9)', () => {
  it('reach the page at most once per 150 ms, each time with the newest text (fake clock)', async () => {
    const engine = newEngine();
    await engine.whenStarted();
    const realSetTimeout = globalThis.setTimeout;
    const pause = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));
    // rxjs's throttleTime schedules on setInterval: only that clock is fake (the gateway's tokens come in real time).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const updates: ConversationUpdate[] = [];
    try {
      const sent = await engine.sendMessage({ slug: null, prompt: 'Please think step by step and write a typescript function to sum the numbers 1 to 100, explain the math formula, and list the steps?', model: 'parley-offline' });
      if (!sent.ok) throw new Error(sent.error);
      const sub = engine.observe({ kind: 'conversationUpdates', slug: sent.slug }).subscribe((u) => updates.push(u));
      try {
        /** The newest live text the page was sent, or null before any. */
        const lastLive = (): LiveMessageText | null => {
          for (let i = updates.length - 1; i >= 0; i--) {
            const u = updates[i];
            if (u?.kind === 'live' && u.messages[0]) return u.messages[0];
          }
          return null;
        };
        const streaming = (u: ConversationUpdate | undefined) => u?.kind === 'live' && u.messages.some((m) => m.status === 'streaming' && (m.text + m.thinking).length > 0);
        // The first text: let the fake clock run in 150 ms steps until the page has some, then start clean.
        for (let i = 0; i < 600 && !updates.some(streaming); i++) {
          await pause(50);
          await vi.advanceTimersByTimeAsync(150);
        }
        expect(updates.some(streaming)).toBe(true);
        // Line the clock up with a window: tokens pile up, then the clock moves 1 ms at a time until one reaches the
        // page. That update opens the next 150 ms window, now.
        const before = updates.length;
        await pause(300);
        for (let i = 0; i < 200 && updates.length === before; i++) await vi.advanceTimersByTimeAsync(1);
        expect(updates.length).toBe(before + 1);
        const opened = updates.length;
        const atOpen = lastLive() as LiveMessageText;

        // The clock stands still: tokens keep arriving (40 ms apart), none reaches the page.
        await pause(600);
        expect(updates.length).toBe(opened);

        // 149 ms later: still nothing. At 150 ms: one update, with the newest text (longer than the last shown).
        await vi.advanceTimersByTimeAsync(149);
        expect(updates.length).toBe(opened);
        await vi.advanceTimersByTimeAsync(1);
        expect(updates.length).toBe(opened + 1);
        const next = lastLive() as LiveMessageText;
        expect(next.status).toBe('streaming');
        expect((next.text + next.thinking).length).toBeGreaterThan((atOpen.text + atOpen.thinking).length);
      } finally {
        sub.unsubscribe();
      }
      // Let the reply finish, so the engine is disposed with nothing streaming.
      let finished = false;
      for (let i = 0; i < 1200 && !finished; i++) {
        const rows = await engine.db.messages.where('conversationSlug').equals(sent.slug).toArray();
        finished = rows.some((m) => m.role === 'assistant' && (m.status === 'done' || m.status === 'error'));
        if (!finished) {
          await pause(50);
          await vi.advanceTimersByTimeAsync(150);
        }
      }
      expect(finished).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
