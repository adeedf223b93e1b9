/**
 * Opening a long conversation, the view's part: the conversation page's MessageList (virtualised, with the app's
 * MessageItem, Markdown and styles) rendered from 100 and from 10,000 messages, timed from the start of the
 * render to the first frame painted with it, in Chromium. The data is already in the tab (the engine's query and
 * its transfer are outside this figure). Rounds alternate the sizes; medians.
 * Targets (issue 6): first paint of 10,000 messages under 100 ms; t(10k) / t(100) at most 1.2.
 */
import { median, openViewPage } from './conversation-view/harness';
import type { OpenResult } from './conversation-view/page-api';
import { needChromium, size } from './smoke';
import type { Bench } from './types';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(9, 2));

const bench: Bench = async () => {
  needChromium();
  const view = await openViewPage();
  try {
    const small: OpenResult[] = [];
    const large: OpenResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [100, 10_000] : [10_000, 100];
      for (const n of order) {
        const r = await view.page.evaluate(([count, run]) => window.parleyView!.open(count, run), [n, round * 2 + (n === 100 ? 0 : 1)] as const);
        (n === 100 ? small : large).push(r);
        await view.page.evaluate(() => window.parleyView!.clear());
      }
    }
    // The first round of each warms the JIT; it is kept out.
    const t100 = median(small.slice(1).map((r) => r.firstPaintMs));
    const t10k = median(large.slice(1).map((r) => r.firstPaintMs));
    const articles = large.at(-1)?.articles ?? 0;
    return [
      {
        name: 'open a 10,000-message conversation: first paint (view)',
        unit: 'ms',
        value: t10k,
        baseline: null,
        ratio: null,
        target: '< 100 ms',
        pass: t10k < 100,
        notes: `${articles} message elements in the DOM of 10,000; median of ${ROUNDS - 1} rounds; outside the figure, a structured clone of the 10,000 messages (the engine's transfer, both ends) took ${median(large.slice(1).map((r) => r.cloneMs)).toFixed(1)} ms (100: ${median(small.slice(1).map((r) => r.cloneMs)).toFixed(1)} ms)`,
      },
      {
        name: 'open a conversation: t(10,000 messages) / t(100 messages)',
        unit: 'ms',
        value: t10k,
        baseline: t100,
        ratio: t10k / t100,
        target: 'ratio <= 1.2',
        pass: t10k / t100 <= 1.2,
      },
    ];
  } finally {
    await view.close();
  }
};

export default bench;
