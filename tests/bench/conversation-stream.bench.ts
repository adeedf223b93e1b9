/**
 * Streaming into a long conversation, the view's part: 1,000 tokens/s published every 150 ms (as the engine
 * does) into a conversation of 2,000 finished messages, against the same stream into an empty conversation, in
 * Chromium. Each publish delivers the whole view freshly cloned, as the live query's postMessage does.
 * Figures: main-thread task time (CDP Performance.TaskDuration) during the stream, ratio long / empty; and the
 * longest main-thread long task (PerformanceObserver 'longtask'). Rounds alternate; medians.
 * Targets (issue 6): no long task over 50 ms; CPU within 1.1x of the empty conversation.
 */
import { median, openViewPage } from './conversation-view/harness';
import type { StreamConfig, StreamResult } from './conversation-view/page-api';
import type { Bench } from './types';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const DURATION_MS = Number(process.env.BENCH_STREAM_MS ?? 6000);

const bench: Bench = async () => {
  const view = await openViewPage();
  try {
    const cpu: Record<number, number[]> = { 0: [], 2000: [] };
    const longest: Record<number, number> = { 0: 0, 2000: 0 };
    const longCount: Record<number, number> = { 0: 0, 2000: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const history of round % 2 === 0 ? [2000, 0] : [0, 2000]) {
        const config: StreamConfig = { history, tokensPerSecond: 1000, durationMs: DURATION_MS, publishMs: 150 };
        await view.page.evaluate((n) => window.parleyView!.prepare(n), history);
        const before = await view.taskSeconds();
        const r: StreamResult = await view.page.evaluate((c) => window.parleyView!.stream(c), config);
        const after = await view.taskSeconds();
        await view.page.evaluate(() => window.parleyView!.clear());
        cpu[history]!.push(((after - before) * 1000) / r.ticks);
        longest[history] = Math.max(longest[history]!, ...r.longTasks, 0);
        longCount[history]! += r.longTasks.length;
      }
    }
    const long = median(cpu[2000]!);
    const empty = median(cpu[0]!);
    return [
      {
        name: 'stream 1,000 tokens/s into 2,000 messages: main-thread CPU per publish vs into an empty conversation',
        unit: 'ms',
        value: long,
        baseline: empty,
        ratio: long / empty,
        target: 'ratio <= 1.1',
        pass: long / empty <= 1.1,
        notes: `${ROUNDS} rounds of ${DURATION_MS} ms each; mounting the list is outside the figure`,
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
