import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { conversationState, foldState } from '../../../src/inspect';
import { fold, readModels } from '../../../src/projections/fold';
import { generateSampleLog } from '../../bench/log-append/sample-log';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'parley-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const events = generateSampleLog({ events: 200, seed: 21, activeConversations: 3 });
const file = join(dir, 'log.ndjson');
writeFileSync(file, encodeLog(events, { exportedAt: 1_700_000_000_000 }));
const expected = readModels(fold(events));

async function replay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/replay.ts', ...args], { cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('replay CLI', () => {
  it('prints a summary of every conversation', async () => {
    const { code, stdout } = await replay(file);
    expect(code).toBe(0);
    expect(stdout).toContain(`${events.length} events`);
    expect(stdout).toContain(`Read models: ${expected.conversations.length} conversations`);
    for (const c of expected.conversations) expect(stdout).toContain(`${c.conversation.slug}  "${c.conversation.name}"  (${c.messages.length} messages`);
  });

  it('prints one conversation, or its read models as JSON', async () => {
    const target = expected.conversations[0]!;
    const text = await replay(file, '--conversation', target.conversation.slug);
    expect(text.code).toBe(0);
    for (const m of target.messages) expect(text.stdout).toContain(`#${m.id} `);
    const json = await replay(file, '--conversation', target.conversation.slug, '--json');
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(target)));
    const all = await replay(file, '--json');
    expect(JSON.parse(all.stdout).conversations).toHaveLength(expected.conversations.length);
  });

  it('fails clearly on a bad file, an unknown conversation, a missing file and bad usage', async () => {
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(bad, '{"format":"parley-event-log","version":1,"schema":42,"exportedAt":1,"count":1}\nnot json\n');
    const r1 = await replay(bad);
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(/not a valid Parley event log: line 2: not valid JSON/);
    const r2 = await replay(file, '--conversation', 'nope');
    expect(r2.code).toBe(3);
    expect(r2.stderr).toMatch(/no conversation with slug 'nope'/);
    const r3 = await replay(join(dir, 'missing.ndjson'));
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(/cannot read/);
    const r4 = await replay();
    expect(r4.code).toBe(2);
    expect(r4.stderr).toMatch(/usage: npm run replay/);
  });
});

/** A fixed small log (2 conversations, 33 events) for golden outputs. */
const small = join(dir, 'small.ndjson');
writeFileSync(small, encodeLog(generateSampleLog({ events: 30, seed: 3, activeConversations: 2 }), { exportedAt: 1_700_000_000_000 }));

describe('replay CLI: questions about one log (golden outputs on a fixed log)', () => {
  it('--events lists the matching events, one a line, filtered by type, conversation and time', async () => {
    const r = await replay(small, '--events', '--type', 'reply.completed', '--conversation', 'conv-1-ffqa');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '5  2023-11-14T22:14:59.420Z  reply.completed v1  conv-1-ffqa  ev-5  {"messageId":2,"conversationSlug":"conv-1-ffqa","text":"let. folder upgrade quickly let version folder string reload ...',
        '22  2023-11-14T22:18:55.189Z  reply.completed v1  conv-1-ffqa  ev-m  {"messageId":8,"conversationSlug":"conv-1-ffqa","text":"function audio because table version value. model worker voic...',
        '33  2023-11-14T22:21:43.046Z  reply.completed v1  conv-1-ffqa  ev-x  {"messageId":12,"conversationSlug":"conv-1-ffqa","text":"folder number event. retry replay balance a assistant. objec...',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('3 of 33 events match\n');
    const ranged = await replay(small, '--events', '--type', 'reply.check*,conversation.created', '--from', '2023-11-14T22:15:00Z', '--to', '1700000210000', '--json');
    expect(ranged.stdout.trim().split('\n').map((l) => JSON.parse(l) as { position: number; type: string })).toEqual([
      expect.objectContaining({ position: 6, type: 'conversation.created' }),
      expect.objectContaining({ position: 10, type: 'reply.checkpointed' }),
      expect.objectContaining({ position: 11, type: 'reply.checkpointed' }),
    ]);
  });

  it('--at and --until print the state after an event; --diff what changed between two points', async () => {
    const at = await replay(small, '--at', '5');
    expect(at.code).toBe(0);
    expect(at.stdout.split('\n').slice(0, 4)).toEqual([
      'State after event 5 of 33 (2023-11-14T22:14:59.420Z, reply.completed ev-5)',
      'Read models: 1 conversations, 2 messages, 0 queued, 0 deposits',
      '',
      'conv-1-ffqa  "quickly. database"  (2 messages, created 2023-11-14T22:13:48.871Z, updated 2023-11-14T22:14:59.420Z)',
    ]);
    const until = await replay(small, '--until', '2023-11-14T22:15:00Z');
    expect(until.stdout).toBe(at.stdout);
    const diff = await replay(small, '--diff', '20', '22');
    expect(diff.code).toBe(0);
    expect(diff.stdout).toBe(
      [
        'Changes from after event 20 of 33 (2023-11-14T22:18:50.979Z, message.added ev-k)',
        '          to after event 22 of 33 (2023-11-14T22:18:55.189Z, reply.completed ev-m):',
        '~ conversations #1',
        '    updatedAt: 1700000330979 -> 1700000335189',
        '    latestMessage: "number branch value event user" -> "function audio because table version value. model worker voice function resu...',
        '~ messages #8',
        '    prompt: "" -> "function audio because table version value. model worker voice function resu...',
        '    status: "pending" -> "done"',
        '    updatedAt: 1700000330979 -> 1700000335189',
        '    requestId: undefined -> "req-8-20"',
        '    thinking: undefined -> ""',
        '    cost: undefined -> 0.000408',
        '    paymentSource: undefined -> "USD"',
        '    outputTokens: undefined -> 270',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await replay(small, '--diff', '5', '6', '--json')).stdout) as { from: number; to: number; changes: { kind: string; where: string }[] };
    expect(json).toMatchObject({ from: 5, to: 6, changes: [{ kind: 'added', where: 'conversations #2' }] });
  });

  it('--trim writes a repro log that replays to the same conversation; --redact hides the words', async () => {
    const out = join(dir, 'repro.ndjson');
    const r = await replay(small, '--trim', 'conv-2-7tep', '--redact', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^18 of 33 events, \d+ of \d+ characters \(\d+\.\d%\), text redacted, written to /);
    const whole = conversationState(foldState(decodeLog(readFileSync(small, 'utf8')).events), 'conv-2-7tep');
    const repro = conversationState(foldState(decodeLog(readFileSync(out, 'utf8')).events), 'conv-2-7tep');
    expect(repro.messages.map((m) => [m.id, m.status, m.parentMessageId])).toEqual(whole.messages.map((m) => [m.id, m.status, m.parentMessageId]));
    expect(repro.messages.map((m) => String(m.prompt).length)).toEqual(whole.messages.map((m) => String(m.prompt).length));
    expect(readFileSync(out, 'utf8')).not.toMatch(/wallet|replay|quickly/);
    const plain = join(dir, 'plain.ndjson');
    await replay(small, '--trim', 'conv-2-7tep', '--out', plain);
    expect(conversationState(foldState(decodeLog(readFileSync(plain, 'utf8')).events), 'conv-2-7tep')).toEqual(whole);
    expect((await replay(small, '--trim', 'nope')).code).toBe(3);
  });

  it('--check reads the whole log, or names the first bad line', async () => {
    const ok = await replay(small, '--check');
    expect(ok).toMatchObject({ code: 0, stdout: `${small}: ok, 33 events decoded, upcast and folded (format v1, schema 42)\n` });
    const lines = readFileSync(small, 'utf8').split('\n');
    lines[8] = lines[8]!.replace('"status":"pending"', '"status":"lost"');
    const damaged = join(dir, 'damaged.ndjson');
    writeFileSync(damaged, lines.join('\n'));
    const bad = await replay(damaged, '--check');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^.*damaged\.ndjson: line 9: .*status.* \(7 events before it read and folded\)\n$/);
  });

  it('--help, exit codes for usage and for points outside the log', async () => {
    const help = await replay('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit status: 0 ok; 1 the log is invalid or cannot be read \(with the line and the reason\); 2 bad usage;\n3 the log has no such conversation or position\./);
    expect((await replay(small, '--at', '34')).code).toBe(3);
    expect((await replay(small, '--diff', '3')).code).toBe(2);
    expect((await replay(small, '--at', '1', '--events')).code).toBe(2);
    expect((await replay(small, '--events', '--from', 'yesterday')).code).toBe(2);
  });
});
