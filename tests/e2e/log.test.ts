import { execFile } from 'node:child_process';
import { readFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, assistant, chooseModel, openApp, send, user, useStack } from './stack';

const getStack = useStack();

describe('event log export and import', () => {
  it('exports NDJSON with a header, imports it into a fresh browser, and replays it in Node', async () => {
    getStack().upstream.setScript(textReply('Exported reply.'));
    const source = await openApp(await getStack().newContext());
    await chooseModel(source, FREE_MODEL);
    await send(source, 'Carry me over');
    await source.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const slug = new URL(source.url()).pathname.split('/').pop() ?? '';

    // The log's tools are in Settings, "Data", not in the sidebar (issue 16 item 6).
    expect(await source.getByRole('complementary').getByRole('button', { name: 'Export log' }).count()).toBe(0);
    await source.goto('/settings/data');
    const [download] = await Promise.all([source.waitForEvent('download'), source.getByRole('region', { name: 'Data' }).getByRole('button', { name: 'Export log' }).click()]);
    const ndjson = await readFile(await download.path(), 'utf8');
    const lines = ndjson.trim().split('\n');
    const header = JSON.parse(lines[0] ?? '{}') as { format?: string; schema?: number; count?: number };
    expect(header).toMatchObject({ format: 'parley-event-log', schema: 42, count: lines.length - 1 });
    const types = lines.slice(1).map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(expect.arrayContaining(['conversation.created', 'message.added', 'reply.started', 'reply.completed']));

    // A fresh profile (its own IndexedDB) imports the file and shows the same conversation.
    const target = await openApp(await getStack().newContext());
    await target.goto('/settings/data');
    // A file that is not a log gets a plain message with its line, not the JSON parser's.
    await target.getByLabel('Import log file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello, this is not a log\n') });
    await target.getByRole('region', { name: 'Notifications' }).getByText('This is not a Parley log (line 1: not a log line).', { exact: true }).waitFor();
    await target.getByLabel('Import log file').setInputFiles({ name: 'log.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(ndjson) });
    await target.getByRole('region', { name: 'Notifications' }).getByText('Log imported', { exact: true }).waitFor();
    await target.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Carry me over' }).click();
    await target.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    expect(new URL(target.url()).pathname).toBe(`/conversation/${slug}`);
    expect(await user(target).first().textContent()).toContain('Carry me over');
    expect(await assistant(target).first().textContent()).toContain('Exported reply.');

    // Importing the same file again adds nothing.
    await target.goto('/settings/data');
    await target.getByLabel('Import log file').setInputFiles({ name: 'log.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(ndjson) });
    await target.getByText(`0 events added, ${lines.length - 1} already present.`).waitFor();

    // The same file replays in Node with the same projection code.
    const dir = await mkdtemp(join(tmpdir(), 'parley-log-'));
    const file = join(dir, 'log.ndjson');
    await writeFile(file, ndjson);
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'src/cli/replay.ts', file, '--conversation', slug, '--json']);
    expect(stdout).toContain('Carry me over');
    expect(stdout).toContain('Exported reply.');
  });
});
