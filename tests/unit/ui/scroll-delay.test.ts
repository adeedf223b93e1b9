/** Spec 001 section 9: the conversation scrolls to the newest message 100 ms after it renders. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SCROLL_DELAY_MS, scrollToNewestLater } from '../../../src/ui/components/list-rows';

describe('scroll to the newest message', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('scrolls to the end 100 ms after a message renders, to the height it has then', () => {
    expect(SCROLL_DELAY_MS).toBe(100);
    const el = { scrollTop: 0, scrollHeight: 500 };
    scrollToNewestLater(el, () => true);
    el.scrollHeight = 900; // an image loaded after the first paint
    vi.advanceTimersByTime(99);
    expect(el.scrollTop).toBe(0);
    vi.advanceTimersByTime(1);
    expect(el.scrollTop).toBe(900);
  });

  it('leaves a reader who scrolled up where they are, and a cancelled scroll never happens', () => {
    const el = { scrollTop: 10, scrollHeight: 500 };
    scrollToNewestLater(el, () => false);
    vi.advanceTimersByTime(100);
    expect(el.scrollTop).toBe(10);
    const cancel = scrollToNewestLater(el, () => true);
    cancel();
    vi.advanceTimersByTime(100);
    expect(el.scrollTop).toBe(10);
  });
});
