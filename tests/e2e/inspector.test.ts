import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { decodeLog, encodeLog } from '../../src/events/codec';
import { conversationState, foldState } from '../../src/inspect';
import { promptText } from '../../src/projections/projection';
import { generateSampleLog } from '../bench/log-append/sample-log';
import { textReply } from '../unit/server/fake-upstream';
import { FREE_MODEL, chooseModel, openApp, send, useStack } from './stack';

const getStack = useStack();

describe('Inspector', () => {
  it('shows the live log, filters, selects, diffs, scrubs, opens a file without writing it and exports a repro', async () => {
    getStack().upstream.setScript(textReply('Inspected reply.'));
    const page = await openApp(await getStack().newContext());
    await chooseModel(page, FREE_MODEL);
    await send(page, 'Look at my log');
    await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
    const slug = new URL(page.url()).pathname.split('/').pop() ?? '';

    // The shortcut opens it from anywhere; Settings > Developer links to it.
    await page.keyboard.press('Control+Alt+KeyI');
    await page.waitForURL('**/inspector');
    await page.goto(new URL('/settings/developer', page.url()).href);
    await page.getByRole('link', { name: 'Open the Inspector' }).click();
    await page.getByRole('heading', { name: 'Inspector', level: 1 }).waitFor();
    const status = page.getByRole('status').filter({ hasText: 'from the live log' });
    await status.waitFor();
    const liveCount = Number(/^(\d+) events/.exec((await status.textContent()) ?? '')?.[1]);
    expect(liveCount).toBeGreaterThanOrEqual(4);

    // Filter by type, select the event, see what it changed.
    await page.getByLabel('Type', { exact: true }).selectOption('reply.completed');
    await page.getByText(`1 of ${liveCount} events match`).waitFor();
    await page.getByRole('listbox', { name: 'Events' }).getByRole('option').first().click();
    await page.getByRole('heading', { name: /^Event \d+: reply\.completed$/ }).waitFor();
    const changes = (await page.getByLabel('Changes').textContent()) ?? '';
    expect(changes).toMatch(/~ messages #\d+\n {4}prompt: "" -> "Inspected reply\."/);
    expect(changes).toContain('status: "streaming" -> "done"');

    // Scrub: before the first event the conversation does not exist; at the end it shows with the app's message list.
    await page.getByLabel('Conversation to show').selectOption(slug);
    const range = page.getByLabel('Position');
    await range.focus();
    await page.keyboard.press('Home');
    await page.getByText('This conversation does not exist yet at this point.').waitFor();
    await page.keyboard.press('End');
    const scrub = page.getByRole('region', { name: 'Time scrubber' });
    await scrub.locator('article[data-role="assistant"]').getByText('Inspected reply.').waitFor();

    // Open an exported log: shown read-only; the live database is untouched.
    const sample = generateSampleLog({ events: 400, seed: 5, activeConversations: 3 });
    const fileText = encodeLog(sample, { exportedAt: 1_700_000_000_000 });
    await page.getByLabel('Open a log file').setInputFiles({ name: 'bug.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(fileText) });
    await page.getByText(`${sample.length} events from bug.ndjson (read only)`).waitFor();
    const target = decodeLog(fileText).events.find((e) => e.type === 'conversation.created')!;
    const targetSlug = (target.payload as { conversation: { slug: string } }).conversation.slug;

    // Export a repro of one of its conversations, redacted: it replays to the same conversation, without the words.
    await page.getByLabel('Conversation for the repro').selectOption(targetSlug);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export repro' }).click()]);
    const repro = await readFile(await download.path(), 'utf8');
    const whole = conversationState(foldState(decodeLog(fileText).events), targetSlug);
    const trimmed = conversationState(foldState(decodeLog(repro).events), targetSlug);
    expect(decodeLog(repro).events.length).toBeLessThan(sample.length);
    expect(trimmed.messages.map((m) => [m.id, m.status, promptText(m.prompt).length])).toEqual(whole.messages.map((m) => [m.id, m.status, promptText(m.prompt).length]));
    expect(repro).not.toContain(promptText(whole.messages[0]!.prompt).slice(0, 30));

    const live = await page.evaluate(async () => {
      const req = indexedDB.open('parley');
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const count = (store: string) =>
        new Promise<number>((resolve, reject) => {
          const r = db.transaction(store).objectStore(store).count();
          r.onsuccess = () => resolve(r.result);
          r.onerror = () => reject(r.error);
        });
      const out = { events: await count('events'), conversations: await count('conversations') };
      db.close();
      return out;
    });
    expect(live).toEqual({ events: liveCount, conversations: 1 });
  });

  it('decodes a log in its own worker, not on the page, and names the first bad line of a damaged file', async () => {
    const page = await openApp(await getStack().newContext());
    const workers: string[] = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(new URL('/inspector', page.url()).href);
    await page.getByRole('status').filter({ hasText: 'from the live log' }).waitFor();
    expect(workers.filter((u) => u.includes('decode-worker'))).toHaveLength(1);

    const sample = generateSampleLog({ events: 3000, seed: 9, activeConversations: 3 });
    const lines = encodeLog(sample, { exportedAt: 1_700_000_000_000 }).split('\n');
    await page.getByLabel('Open a log file').setInputFiles({ name: 'big.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.join('\n')) });
    await page.getByText(`${sample.length} events from big.ndjson (read only)`).waitFor();
    expect(workers.filter((u) => u.includes('decode-worker'))).toHaveLength(2);
    // Every event arrived, in order: the last one is listed at its position.
    await page.getByText(`${sample.length} events`, { exact: true }).waitFor();

    lines[5] = '{"type":"message.added"';
    await page.getByLabel('Open a log file').setInputFiles({ name: 'bad.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.join('\n')) });
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 60_000 }).toMatch(/^bad\.ndjson: line 6: not valid JSON/);
    // The log shown before stays.
    await page.getByText(`${sample.length} events from big.ndjson (read only)`).waitFor();
  });
});
