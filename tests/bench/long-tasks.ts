/**
 * For the browser benchmarks: an init script, installed before the app's code, that records every long task of the
 * page ('longtask': over 50 ms on the main thread) as [start, duration] in `window.__longTasks`.
 */
export const LONG_TASK_RECORDER = `(() => {
  const tasks = [];
  window.__longTasks = tasks;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });
})()`;
