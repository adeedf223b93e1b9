/**
 * Writes in order (issue 21): the engine runs writing commands one at a time, whichever tab sent them. Two tabs
 * talk to one engine through their own Comlink connections (as src/worker/engine-worker.ts gives each tab); their
 * commands, sent without waiting, land in the order they arrived, and none reads another's half-done write.
 */
import 'fake-indexeddb/auto';
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandHandlers } from '../../../src/protocol/engine';
import type { Engine } from '../../../src/worker/engine';
import { FOLDER_ERROR } from '../../../src/worker/rooms/folders/commands';
import { textReply } from '../server/fake-upstream';
import { until, useEngineStack } from './harness';

const stack = useEngineStack(() => textReply('Arr.', { delayMs: 0 }), ['fake-model']);

const ports: MessagePort[] = [];
/** What the engine received, in order, from every tab (a tab's own messages arrive in order; two tabs interleave). */
let arrived: string[] = [];
const LABEL: Partial<Record<keyof CommandHandlers, (args: unknown[]) => string>> = {
  setPreferences: (args) => `pref:${String((args[0] as { expandedFolderIds: number[] }).expandedFolderIds[0])}`,
  renameFolder: (args) => `rename:${String(args[1])}`,
  createFolder: (args) => `create:${String(args[0])}`,
};
/** A tab's connection to the engine: its own channel and Comlink endpoint (what engine-worker.ts gives a tab). */
function tab(engine: Engine): Comlink.Remote<CommandHandlers> {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const commands: Record<string, unknown> = { ...engine.commands };
  for (const [name, label] of Object.entries(LABEL)) {
    const run = engine.commands[name as keyof CommandHandlers] as (...args: unknown[]) => unknown;
    commands[name] = (...args: unknown[]) => {
      arrived.push(label(args));
      return run(...args);
    };
  }
  Comlink.expose(commands, port1);
  return Comlink.wrap<CommandHandlers>(port2);
}
afterEach(() => {
  for (const p of ports.splice(0)) p.close();
  arrived = [];
});

describe('writes in order across tabs', () => {
  it('folders made in folders another tab is deleting: never one left inside a deleted folder', async () => {
    const engine = stack.engine('writes-parent');
    const [a, b] = [tab(engine), tab(engine)];
    const parents: number[] = [];
    for (let i = 0; i < 8; i++) {
      const made = await a.createFolder(`Project ${i}`, null);
      if (made.ok) parents.push(made.id);
    }
    // Sent together: tab A deletes each folder while tab B makes a folder in it (neither waits for the other).
    const results = await Promise.all(parents.flatMap((id) => [a.deleteFolder(id), b.createFolder('Inside', id)]));
    // Each child was made before its parent's delete (and went with it) or was refused after it.
    for (const r of results) if (!r.ok) expect(r.error).toBe(FOLDER_ERROR.parentNotFound);
    expect(await engine.db.folders.toArray()).toEqual([]);
  });

  it('writes from two tabs land in the log in the order the engine received them', async () => {
    const engine = stack.engine('writes-order');
    const [a, b] = [tab(engine), tab(engine)];
    const made = await a.createFolder('Start', null);
    const id = made.ok ? made.id : 0;
    arrived = [];
    // A rename reads the folder first, a preference change does not, a new folder reads nothing either: without the
    // queue a later, quicker write overtakes an earlier one.
    const sends: Promise<unknown>[] = [];
    for (let i = 1; i <= 6; i++) {
      sends.push(a.renameFolder(id, `a${i}`), b.setPreferences({ expandedFolderIds: [i] }), b.createFolder(`b${i}`, id));
    }
    await Promise.all(sends);
    const log = (await engine.db.events.where('type').anyOf(['folder.renamed', 'preferences.changed', 'folder.created']).sortBy('seq')).slice(1);
    const written = log.map((e) => {
      const p = e.payload as { name?: string; changes?: { expandedFolderIds: number[] }; folder?: { name: string } };
      if (e.type === 'folder.renamed') return `rename:${p.name ?? ''}`;
      if (e.type === 'folder.created') return `create:${p.folder?.name ?? ''}`;
      return `pref:${String(p.changes?.expandedFolderIds[0])}`;
    });
    expect(written).toEqual(arrived);
    expect(written).toHaveLength(18);
  });

  it("a message sent right after the tab saved the conversation's system prompt is sent with it", async () => {
    const engine = stack.engine('writes-instructions');
    const a = tab(engine);
    const first = await a.sendMessage({ slug: null, prompt: 'Hello', model: 'fake-model' });
    const slug = first.ok ? first.slug : '';
    await until(engine.observe({ kind: 'conversation', slug }), (v: { messages: { status: string }[] }) => v.messages.length === 2 && v.messages[1]?.status === 'done');
    const before = stack.upstream.requests.length;
    // Not waited for: the view no longer keeps its own write barrier.
    const saved = a.setConversationInstructions(slug, 'Talk like a pirate.');
    const sent = await a.sendMessage({ slug, prompt: 'Ahoy?', model: 'fake-model' });
    expect(await saved).toEqual({ ok: true });
    expect(sent.ok).toBe(true);
    await until(engine.observe({ kind: 'conversation', slug }), (v: { messages: { status: string }[] }) => v.messages.length === 4 && v.messages[3]?.status === 'done');
    const request = stack.upstream.requests.slice(before).find((r) => r.path.includes('chat'));
    expect(request?.body?.messages?.[0]).toEqual({ role: 'system', content: 'Talk like a pirate.' });
  });
});
