import { describe, expect, it } from 'vitest';
import { encodeLog } from '../../../src/events/codec';
import { checkLog, describeEvent, diffStates, filterEvents, formatDiff, parseTime, sameValue, Timeline, typeMatches } from '../../../src/inspect';
import { inspectorLog } from './fixture';

const events = inspectorLog();
const timeline = new Timeline(events, 16);
const pos = (id: string) => events.findIndex((e) => e.id === id) + 1;

describe('diffStates', () => {
  it('shows what one event changed: a completed reply changes its message and its conversation', () => {
    const n = events.findIndex((e) => e.type === 'reply.completed') + 1;
    const done = events[n - 1]!;
    if (done.type !== 'reply.completed') throw new Error('fixture');
    const diff = diffStates(timeline.stateAt(n - 1), timeline.stateAt(n));
    expect(diff.changes.map((c) => `${c.kind} ${c.where}`)).toEqual([`changed conversations #1`, `changed messages #${done.payload.messageId}`]);
    const msg = diff.changes[1]!;
    if (msg.kind !== 'changed') throw new Error('expected a change');
    expect(msg.fields.find((f) => f.field === 'status')).toEqual({ field: 'status', before: 'streaming', after: 'done' });
    expect(msg.fields.find((f) => f.field === 'prompt')?.after).toBe(done.payload.text);
    const lines = formatDiff(diff);
    expect(lines[0]).toBe('~ conversations #1');
    expect(lines).toContain('    status: "streaming" -> "done"');
  });

  it('shows added rows, preferences, the queue, and nothing between equal states', () => {
    expect(formatDiff(diffStates(timeline.stateAt(0), timeline.stateAt(1)))[0]).toMatch(/^\+ conversations #1 \{"id":1,/);
    const p = pos('x-pref-1');
    expect(formatDiff(diffStates(timeline.stateAt(p - 1), timeline.stateAt(p)))).toEqual(['~ preferences', '    theme: "dark" -> "light"']);
    const q = pos('x-q-1');
    const queued = diffStates(timeline.stateAt(q - 1), timeline.stateAt(q)).changes;
    expect(queued.map((c) => `${c.kind} ${c.where}`)).toEqual([`added queue ${(events[q - 1]!.payload as { conversationSlug: string }).conversationSlug}`]);
    expect(diffStates(timeline.stateAt(50), timeline.stateAt(50)).changes).toEqual([]);
    expect(formatDiff({ changes: [] })).toEqual(['(no changes)']);
    const back = diffStates(timeline.stateAt(1), timeline.stateAt(0)).changes;
    expect(back.map((c) => c.kind)).toEqual(['removed']);
  });

  it('compares values deeply, undefined fields as absent', () => {
    expect(sameValue({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameValue({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
    expect(sameValue([1], { 0: 1 })).toBe(false);
    expect(sameValue(Number.NaN, Number.NaN)).toBe(true);
  });
});

describe('checkLog', () => {
  const good = encodeLog(events, { exportedAt: 1 });
  const lines = good.split('\n');
  const damaged = (lineNo: number, text: string) => [...lines.slice(0, lineNo - 1), text, ...lines.slice(lineNo)].join('\n');

  it('accepts a good log', () => {
    const r = checkLog(good);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.events).toHaveLength(events.length);
  });

  it('names the first bad line and the reason', () => {
    expect(checkLog(damaged(7, '{"seq":'))).toMatchObject({ ok: false, line: 7, good: 5 });
    expect(checkLog(damaged(7, '{"seq":')).ok === false && (checkLog(damaged(7, '{"seq":')) as { reason: string }).reason).toMatch(/^not valid JSON/);
    const unknown = damaged(9, JSON.stringify({ type: 'message.exploded', v: 1, id: 'z', at: 1, payload: {} }));
    expect(checkLog(unknown)).toMatchObject({ ok: false, line: 9, reason: expect.stringMatching(/message\.exploded/) });
    const badPayload = damaged(3, lines[2]!.replace('"role":"user"', '"role":42'));
    expect(checkLog(badPayload)).toMatchObject({ ok: false, line: 3, reason: expect.stringMatching(/role/) });
    expect(checkLog(lines.slice(0, 50).join('\n'))).toMatchObject({ ok: false, reason: expect.stringMatching(/header says \d+ events but the file has 49/) });
    expect(checkLog('')).toMatchObject({ ok: false, line: 1 });
  });
});

describe('event filters', () => {
  it('match types exactly or by prefix, conversations, time ranges and text', () => {
    expect(typeMatches('reply.completed', ['reply.*'])).toBe(true);
    expect(typeMatches('reply.completed', ['reply.started'])).toBe(false);
    expect(typeMatches('x', [])).toBe(true);
    const replies = filterEvents(events, { types: ['reply.*'] });
    expect(replies.length).toBe(events.filter((e) => e.type.startsWith('reply.')).length);
    const slug = (events[0]!.payload as { conversation: { slug: string } }).conversation.slug;
    const mine = filterEvents(events, { conversation: slug });
    expect(mine[0]).toBe(1);
    expect(mine.every((n) => JSON.stringify(events[n - 1]!.payload).includes(slug))).toBe(true);
    expect(filterEvents(events, { from: events[10]!.at, to: events[12]!.at })).toEqual(
      events.flatMap((e, i) => (e.at >= events[10]!.at && e.at <= events[12]!.at ? [i + 1] : [])),
    );
    expect(filterEvents(events, { text: 'SEND THIS AFTER' })).toEqual([pos('x-q-1')]);
    expect(filterEvents(events, { types: ['preferences.changed'], text: 'maxTokens' })).toEqual([pos('x-pref-2')]);
  });

  it('parse times and describe an event on one line', () => {
    expect(parseTime('1700000000000')).toBe(1_700_000_000_000);
    expect(parseTime('2023-11-14T22:13:20Z')).toBe(1_700_000_000_000);
    expect(parseTime('yesterday')).toBeNull();
    expect(parseTime('2023-13-45')).toBeNull();
    const line = describeEvent(events[pos('x-pref-1') - 1]!, pos('x-pref-1'));
    expect(line).toBe(`${pos('x-pref-1')}  ${new Date(events[pos('x-pref-1') - 1]!.at).toISOString()}  preferences.changed v1  -  x-pref-1  {"changes":{"theme":"light"},"at":${events[pos('x-pref-1') - 1]!.at}}`);
  });
});
