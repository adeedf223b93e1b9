/**
 * Streaming into a long conversation, the view's part: 1,000 tokens/s published every 150 ms (as the engine
 * does) into a conversation of 2,000 finished messages, against the same stream into an empty conversation, in
 * Chromium. The page gets what the engine's conversationUpdates query sends: the whole view once, then each publish
 * only the reply's text (cloned, as postMessage does), folded into the view as the tab does.
 * Figures: main-thread CPU time (CDP Performance ThreadTime) per publish during the stream, ratio long / empty (task
 * wall time, TaskDuration, is in the notes: on the shared machine it mostly measures waiting for a core); and the
 * longest main-thread long task (PerformanceObserver 'longtask'). Rounds alternate the order; the ratio is the median
 * of each round's own ratio (the two streams of a round run back to back, so load that drifts over minutes on the
 * shared machine cancels out), the per-publish figures are medians.
 * Targets (issue 6): no long task over 50 ms; CPU within 1.1x of the empty conversation.
 */
import { median, openViewPage } from './conversation-view/harness';
import type { StreamConfig, StreamResult } from './conversation-view/page-api';
import { needChromium, size } from './smoke';
import type { Bench } from './types';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? size(4, 1));
const DURATION_MS = Number(process.env.BENCH_STREAM_MS ?? size(6000, 600));

const bench: Bench = async () => {
  needChromium();
  const view = await openViewPage();
  try {
    const cpu: Record<number, number[]> = { 0: [], 2000: [] };
    const wall: Record<number, number[]> = { 0: [], 2000: [] };
    const longest: Record<number, number> = { 0: 0, 2000: 0 };
    const longCount: Record<number, number> = { 0: 0, 2000: 0 };
    // Round 0 warms the JIT for both sizes and is not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const history of round % 2 === 0 ? [2000, 0] : [0, 2000]) {
        const config: StreamConfig = { history, tokensPerSecond: 1000, durationMs: DURATION_MS, publishMs: 150 };
        await view.page.evaluate((n) => window.parleyView!.prepare(n), history);
        const [cpu0, wall0] = [await view.threadSeconds(), await view.taskSeconds()];
        const r: StreamResult = await view.page.evaluate((c) => window.parleyView!.stream(c), config);
        const [cpu1, wall1] = [await view.threadSeconds(), await view.taskSeconds()];
        await view.page.evaluate(() => window.parleyView!.clear());
        if (round === 0) continue;
        cpu[history]!.push(((cpu1 - cpu0) * 1000) / r.ticks);
        wall[history]!.push(((wall1 - wall0) * 1000) / r.ticks);
        longest[history] = Math.max(longest[history]!, ...r.longTasks, 0);
        longCount[history]! += r.longTasks.length;
      }
    }
    const long = median(cpu[2000]!);
    const empty = median(cpu[0]!);
    const ratios = cpu[2000]!.map((x, i) => x / cpu[0]![i]!);
    const ratio = median(ratios);
    return [
      {
        name: 'stream 1,000 tokens/s into 2,000 messages: main-thread CPU (ThreadTime) per publish vs into an empty conversation',
        unit: 'ms',
        value: long,
        baseline: empty,
        ratio,
        target: 'ratio <= 1.1',
        pass: ratio <= 1.1,
        notes: `median of ${ROUNDS} paired rounds of ${DURATION_MS} ms after a warm-up round (round ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}); task wall time ${median(wall[2000]!).toFixed(1)} / ${median(wall[0]!).toFixed(1)} ms; mounting the list is outside the figure`,
      },
      {
        name: 'stream into 2,000 messages: longest main-thread task',
        unit: 'ms',
        value: longest[2000]!,
        baseline: null,
        ratio: null,
        target: 'no task > 50 ms',
        pass: longest[2000]! <= 50,
        notes: `${longCount[2000]} long tasks (> 50 ms) in all rounds; empty conversation: ${longCount[0]}, longest ${longest[0]!.toFixed(0)} ms`,
      },
    ];
  } finally {
    await view.close();
  }
};

export default bench;
