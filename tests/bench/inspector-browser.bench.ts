/**
 * The Inspector in Chromium on a 100,000-event log (issue 19: "smooth with 100,000 events", "scrubbing through
 * 100,000 events with no main-thread task over 50 ms", "state at an arbitrary event within 200 ms"). The gateway
 * serves the built client (run `npx vite build` first); Debian's Chromium opens /inspector and opens a seeded
 * sample log (tests/bench/log-append/sample-log.ts) as a file. In the page a PerformanceObserver records every long
 * task ('longtask': over 50 ms on the main thread). Phases, each recording its own long tasks:
 *  - idle: the page with the log open and nothing done, for a few seconds (the baseline: what the page costs alone);
 *  - scroll: the virtualised event list wheeled down and jumped to random places;
 *  - select: events at random places clicked, each timed from the click to the frame that shows its state and
 *    diff (Timeline: a snapshot every 2000 events, built in the background after opening);
 *  - scrub: the busiest conversation chosen, the range dragged from the start to the end in steps, each step timed
 *    from the input to the frame that shows the conversation at that position.
 * Opening the file (decode and validate 100k events) is reported but not judged.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { encodeLog } from '../../src/events/codec';
import { slugsOf } from '../../src/inspect';
import { startGateway } from '../../src/server/start';
import { launchChromium } from '../e2e/browser';
import { generateSampleLog, mulberry32 } from './log-append/sample-log';
import { LONG_TASK_RECORDER } from './long-tasks';
import { needChromium, size } from './smoke';
import type { Bench, BenchResult } from './types';

const EVENTS = size(100_000, 2_000);
const SELECTS = size(12, 2);
const SCRUB_STEPS = size(40, 5);
const IDLE_MS = size(3000, 500);
const WHEELS = size(30, 3);
const JUMPS = size(20, 2);

/** Longest long task (ms) starting at or after `since` (page clock), and how many; 0 when none. */
const TASKS_SINCE = `(since) => { const t = window.__longTasks.filter(([s]) => s >= since); return { longest: t.reduce((m, [, d]) => Math.max(m, d), 0), count: t.length }; }`;

/** Resolves after the next frame was painted (rAF, then a task after it). */
const NEXT_FRAME = `() => new Promise((done) => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => done(performance.now()); ch.port2.postMessage(null); }))`;

/** Clicks the middle visible row of the event list; resolves with its position and the ms until its detail painted. */
const CLICK_ROW = `() => new Promise((done) => {
  const rows = [...document.querySelectorAll('[role="listbox"][aria-label="Events"] [role="option"]')];
  const list = document.querySelector('[role="listbox"][aria-label="Events"]').getBoundingClientRect();
  const visible = rows.filter((r) => { const b = r.getBoundingClientRect(); return b.top >= list.top && b.bottom <= list.bottom; });
  const row = visible[Math.floor(visible.length / 2)];
  const n = Number(row.querySelector('.inspector-pos').textContent);
  const want = 'Event ' + n + ':';
  const t0 = performance.now();
  const check = () => [...document.querySelectorAll('h2')].some((h) => h.textContent.startsWith(want));
  const finish = () => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => done({ n, ms: performance.now() - t0 }); ch.port2.postMessage(null); });
  const observer = new MutationObserver(() => { if (check()) { observer.disconnect(); finish(); } });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  row.click();
  if (check()) { observer.disconnect(); finish(); }
  setTimeout(() => done({ n, ms: Number.NaN }), 60000);
})`;

/**
 * Times each step of a drag of the scrubber: from the range's input event to the frame after the output shows
 * that position ("N of M"). Installs listeners; the bench reads window.__scrub afterwards.
 */
const WATCH_SCRUB = `() => {
  const range = document.querySelector('.inspector-scrub input[type="range"]');
  const out = document.querySelector('.inspector-scrub output');
  const times = (window.__scrub = []);
  let pending = null;
  range.addEventListener('input', () => { pending = { value: range.value, t0: performance.now() }; }, true);
  new MutationObserver(() => {
    if (pending === null || !out.textContent.startsWith(pending.value + ' of ')) return;
    const p = pending;
    pending = null;
    requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => times.push(performance.now() - p.t0); ch.port2.postMessage(null); });
  }).observe(out, { subtree: true, childList: true, characterData: true });
}`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[Math.floor(s.length / 2)] as number);
};

const bench: Bench = async () => {
  needChromium();
  const load = loadavg().map((x) => x.toFixed(1)).join(' ');
  const events = generateSampleLog({ events: EVENTS, seed: 7, secondsTimestamps: 0.05 });
  const counts = new Map<string, number>();
  for (const e of events) for (const s of slugsOf(e)) counts.set(s, (counts.get(s) ?? 0) + 1);
  const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const dir = await mkdtemp(join(tmpdir(), 'parley-inspector-'));
  const file = join(dir, 'big.ndjson');
  await writeFile(file, encodeLog(events, { exportedAt: 1_700_000_000_000 }));
  const gateway = await startGateway({ port: 0, memory: true, inheritEnv: false, clientDir: resolve('dist/client'), log: () => undefined, env: {} });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ baseURL: gateway.url, viewport: { width: 1366, height: 900 } });
    await context.addInitScript(LONG_TASK_RECORDER);
    const page = await context.newPage();
    const now = async () => (await page.evaluate(`(${NEXT_FRAME})()`)) as number;
    const tasksSince = async (t: number) => (await page.evaluate(`(${TASKS_SINCE})(${t})`)) as { longest: number; count: number };
    await page.goto('/inspector');
    await page.getByRole('status').filter({ hasText: 'from the live log' }).waitFor({ timeout: 120_000 });

    // Open the file.
    const tOpen = await now();
    await page.getByLabel('Open a log file').setInputFiles(file);
    await page.getByText(`${events.length} events from big.ndjson (read only)`).waitFor({ timeout: 300_000 });
    const openMs = (await now()) - tOpen;
    const openTasks = await tasksSince(tOpen);
    // Snapshots are built in the background after opening: wait for them (the status says so) before the idle window.
    await page.getByText('State snapshots ready').waitFor({ timeout: 300_000 });
    const snapshotTasks = await tasksSince(tOpen);

    // Idle baseline.
    const tIdle = await now();
    await page.waitForTimeout(IDLE_MS);
    const idle = await tasksSince(tIdle);

    // Scroll the virtualised list: wheel steps, then jumps.
    const list = page.getByRole('listbox', { name: 'Events' });
    const box = (await list.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const tScroll = await now();
    for (let i = 0; i < WHEELS; i++) {
      await page.mouse.wheel(0, 900);
      await now();
    }
    const rand = mulberry32(3);
    for (let i = 0; i < JUMPS; i++) {
      await list.evaluate((el, f) => {
        el.scrollTop = f * (el.scrollHeight - el.clientHeight);
      }, rand());
      await now();
    }
    const scroll = await tasksSince(tScroll);

    // Select events at random places.
    const tSelect = await now();
    const selects: number[] = [];
    for (let i = 0; i < SELECTS; i++) {
      await list.evaluate((el, f) => {
        el.scrollTop = f * (el.scrollHeight - el.clientHeight);
      }, rand());
      await now();
      const r = (await page.evaluate(`(${CLICK_ROW})()`)) as { n: number; ms: number };
      selects.push(r.ms);
    }
    const select = await tasksSince(tSelect);

    // Scrub the busiest conversation from start to end.
    await page.getByLabel('Conversation to show').selectOption(busiest);
    await page.waitForTimeout(500);
    await page.evaluate(`(${WATCH_SCRUB})()`);
    const range = page.locator('.inspector-scrub input[type="range"]');
    await range.scrollIntoViewIfNeeded();
    const rb = (await range.boundingBox())!;
    const y = rb.y + rb.height / 2;
    const tScrub = await now();
    await page.mouse.move(rb.x + 2, y);
    await page.mouse.down();
    for (let i = 1; i <= SCRUB_STEPS; i++) {
      await page.mouse.move(rb.x + 2 + ((rb.width - 4) * i) / SCRUB_STEPS, y);
      await now();
    }
    await page.mouse.up();
    await page.waitForTimeout(500);
    await now();
    const scrub = await tasksSince(tScrub);
    const scrubTimes = (await page.evaluate('window.__scrub')) as number[];

    const worstMove = Math.max(scroll.longest, scrub.longest);
    const worstSelect = Math.max(...selects);
    const results: BenchResult[] = [
      {
        name: `inspector in Chromium, ${EVENTS / 1000}k events: longest main-thread task while scrolling the list and dragging the scrubber vs the idle page`,
        unit: 'ms',
        value: worstMove,
        baseline: idle.longest,
        ratio: idle.longest > 0 ? worstMove / idle.longest : null,
        target: 'no task over 50 ms (longest <= 50 ms)',
        pass: worstMove <= 50,
        notes: `load ${load}; scroll (${WHEELS} wheel steps, ${JUMPS} jumps): ${scroll.count} long tasks, longest ${scroll.longest.toFixed(0)} ms; scrub (${SCRUB_STEPS} steps of ${busiest}): ${scrub.count}, longest ${scrub.longest.toFixed(0)} ms; idle ${IDLE_MS} ms: ${idle.count}, longest ${idle.longest.toFixed(0)} ms`,
      },
      {
        name: `inspector in Chromium, ${EVENTS / 1000}k events: click an event to its state and diff painted (worst of ${SELECTS})`,
        unit: 'ms',
        value: worstSelect,
        baseline: null,
        ratio: null,
        target: '<= 200 ms',
        pass: worstSelect <= 200,
        notes: `load ${load}; median ${median(selects).toFixed(0)} ms; ${select.count} long tasks, longest ${select.longest.toFixed(0)} ms`,
      },
      {
        name: `inspector in Chromium, ${EVENTS / 1000}k events: scrubber step to the conversation painted at that position (median of the steps)`,
        unit: 'ms',
        value: median(scrubTimes),
        baseline: null,
        ratio: null,
        target: '<= 200 ms',
        pass: median(scrubTimes) <= 200,
        notes: `load ${load}; ${scrubTimes.length} steps shown (some are overtaken by the next), worst ${Math.max(...scrubTimes).toFixed(0)} ms; opening the file took ${openMs.toFixed(0)} ms (longest task ${openTasks.longest.toFixed(0)} ms), the background snapshots after it: longest task ${snapshotTasks.longest.toFixed(0)} ms`,
      },
    ];
    return results;
  } finally {
    await browser.close();
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  }
};

export default bench;
