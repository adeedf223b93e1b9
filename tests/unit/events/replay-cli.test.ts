import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeLog } from '../../../src/events/codec';
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
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/no conversation with slug 'nope'/);
    const r3 = await replay(join(dir, 'missing.ndjson'));
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(/cannot read/);
    const r4 = await replay();
    expect(r4.code).toBe(2);
    expect(r4.stderr).toMatch(/usage: npm run replay/);
  });
});
