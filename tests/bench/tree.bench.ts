/**
 * The message tree of a long conversation (src/shared/history.ts), as the conversation query builds it on
 * every load: buildTree + activePath + alternativesOf over rows already sorted by time.
 *  1. linearity: time per message for 10,000 messages vs 100 messages. One pass is O(n): the ratio stays small
 *     (a quadratic walk would give about 100). Maps and arrays of 10,000 entries fall out of cache and cost more
 *     garbage collection than 100-entry ones, so even a bare Map shows 1.3-2x per entry on a loaded machine:
 *     the target is 2.
 *  2. cost next to the least any tree index pays: the tree vs a bare Map from id to row of the same 10,000 rows.
 * The conversations have a realistic share of branches: every 10th reply has 3 alternatives, one of them with a
 * continuation, and every 25th prompt was edited once. Each figure is the median of several runs after a warm-up.
 */
import type { MessageRow } from '../../src/events/model';
import { activePath, alternativesOf, buildTree, byTime } from '../../src/shared/history';
import { size } from './smoke';
import type { Bench, BenchResult } from './types';

const RUNS = size(15, 2);
const index0 = (rows: readonly MessageRow[]) => rows.length;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** A conversation of about `n` messages along its active path, with alternatives and edits off the path. */
export function branchyConversation(n: number): MessageRow[] {
  const rows: MessageRow[] = [];
  let id = 0;
  let t = 1_700_000_000_000;
  const row = (fields: Partial<MessageRow> & Pick<MessageRow, 'role' | 'parentMessageId'>): MessageRow => ({
    id: ++id, conversationSlug: 'c', timestamp: ++t, prompt: `message ${id}`, model: 'm', status: 'done',
    alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: t, ...fields,
  });
  let parent: number | null = null;
  for (let i = 0; rows.length < n; i++) {
    const prompt = row({ role: 'user', parentMessageId: parent });
    rows.push(prompt);
    if (i % 25 === 24) {
      // An edited prompt: the original (inactive) with its old reply, beside the edit.
      const g = `e${i}`;
      rows[rows.length - 1] = { ...prompt, alternativeGroup: g, isActiveBranch: false };
      rows.push(row({ role: 'assistant', parentMessageId: prompt.id }));
      const edit = row({ role: 'user', parentMessageId: parent, alternativeGroup: g, branchIndex: 1 });
      rows.push(edit);
      parent = edit.id;
    } else parent = prompt.id;
    const reply = row({ role: 'assistant', parentMessageId: parent });
    rows.push(reply);
    if (i % 10 === 9) {
      const g = `a${i}`;
      rows[rows.length - 1] = { ...reply, alternativeGroup: g, isActiveBranch: false };
      const other = row({ role: 'assistant', parentMessageId: parent, alternativeGroup: g, branchIndex: 1, isActiveBranch: false });
      rows.push(other, row({ role: 'user', parentMessageId: other.id }), row({ role: 'assistant', parentMessageId: other.id + 1 }));
      const active = row({ role: 'assistant', parentMessageId: parent, alternativeGroup: g, branchIndex: 2 });
      rows.push(active);
      parent = active.id;
    } else parent = reply.id;
  }
  return rows.sort(byTime);
}

function load(rows: readonly MessageRow[]): number {
  const tree = buildTree(rows);
  const path = activePath(tree);
  let n = 0;
  for (const m of path) if (alternativesOf(tree, m)) n++;
  return path.length + n;
}

function timePerMessage(rows: readonly MessageRow[], repeat: number): number {
  const t0 = performance.now();
  for (let i = 0; i < repeat; i++) load(rows);
  return (performance.now() - t0) / repeat / rows.length;
}

const bench: Bench = async () => {
  const small = branchyConversation(100);
  const large = branchyConversation(size(10_000, 1_000));
  // Repeat the small one so both samples take a comparable, measurable time.
  const smallRepeat = Math.round((5 * large.length) / small.length);
  for (let i = 0; i < size(5, 1); i++) {
    timePerMessage(small, smallRepeat);
    timePerMessage(large, 1);
  }
  const perSmall: number[] = [];
  const perLarge: number[] = [];
  const sortMs: number[] = [];
  const treeMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    perSmall.push(timePerMessage(small, smallRepeat));
    perLarge.push(timePerMessage(large, 5));
    let t0 = performance.now();
    const index = new Map<number, MessageRow>();
    for (const m of large) index.set(m.id, m);
    sortMs.push(performance.now() - t0);
    t0 = performance.now();
    load(large);
    treeMs.push(performance.now() - t0);
  }
  const linear = median(perLarge) / median(perSmall);
  const vsSort = median(treeMs) / median(sortMs);
  const results: BenchResult[] = [
    {
      name: 'message tree: time per message, 10,000 vs 100 messages (buildTree + activePath + alternatives)',
      unit: 'µs per message',
      value: median(perLarge) * 1000,
      baseline: median(perSmall) * 1000,
      ratio: linear,
      target: 'ratio <= 2',
      pass: linear <= 2,
      notes: `${large.length} rows (path ${load(large)}); median of ${RUNS} runs; 10k rows take ${median(treeMs).toFixed(2)} ms`,
    },
    {
      name: 'message tree of 10,000 messages vs a bare Map id -> row of the same rows',
      unit: 'ms',
      value: median(treeMs),
      baseline: median(sortMs),
      ratio: vsSort,
      target: 'ratio <= 5',
      pass: vsSort <= 5,
      notes: `the tree: one Map, typed arrays for parents and child lists, the path walk and the alternatives (${index0(large)} rows)`,
    },
  ];
  return results;
};

export default bench;
