import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import { strFromU8, unzipSync } from 'fflate';
import type { ConversationView, ExportFile } from '../../../src/protocol/engine';
import { startGateway, type RunningGateway } from '../../../src/server/start';
import { exportCommands } from '../../../src/worker/rooms/export/commands';
import { Engine } from '../../../src/worker/engine';
import { EXPORT_NOTICE } from '../../../src/shared/messages';
import { startFakeUpstream, textReply, type FakeUpstream } from '../server/fake-upstream';
import { fonts } from './fixtures';
import { fetchThrough } from '../engine/harness';

let upstream: FakeUpstream;
let gateway: RunningGateway;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  upstream = await startFakeUpstream(textReply('First answer.'), { models: ['fake-model'] });
  gateway = await startGateway({
    port: 0,
    memory: true,
    inheritEnv: false,
    clientDir: null,
    log: () => undefined,
    env: { PARLEY_UPSTREAM_URL: upstream.url, PARLEY_UPSTREAM_MODELS: 'fake-model', PARLEY_OFFLINE_TOKEN_DELAY_MS: '0' },
  });
  globalThis.fetch = fetchThrough(gateway.url, realFetch);
  // The in-memory PGlite gateway can take a while to start on a busy machine.
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await gateway?.close();
  await upstream?.close();
});

const engines: Engine[] = [];
let counter = 0;
function newEngine(): Engine {
  const engine = new Engine({ requestReload: () => undefined, storeMarker: () => undefined, dbName: `export-test-${++counter}` });
  engines.push(engine);
  return engine;
}
afterEach(async () => {
  for (const e of engines.splice(0)) await e.dispose();
});

const page = (engine: Engine, slug: string, until: (v: ConversationView) => boolean) =>
  firstValueFrom((engine.observe({ kind: 'conversation', slug }) as Observable<ConversationView | null>).pipe(filter((v): v is ConversationView => v !== null && until(v))));

const done = (text: string) => (v: ConversationView) => v.messages.some((m) => m.role === 'assistant' && m.status === 'done' && m.text === text) && !v.pending;

async function chat(engine: Engine, prompt: string, reply: string): Promise<string> {
  upstream.setScript(textReply(reply));
  const r = await engine.sendMessage({ slug: null, prompt, model: 'fake-model' });
  if (!r.ok) throw new Error(r.error);
  await page(engine, r.slug, done(reply));
  return r.slug;
}

function text(file: ExportFile): string {
  if (!file.ok) throw new Error(file.error);
  return new TextDecoder().decode(file.bytes);
}

describe('export commands on the engine', () => {
  it('exports the active branch the page shows, and follows a branch switch', async () => {
    const engine = newEngine();
    const slug = await chat(engine, 'Tell me about Ωmega', 'First answer.');
    const first = await page(engine, slug, done('First answer.'));
    const replyId = first.messages.find((m) => m.role === 'assistant')!.id;

    upstream.setScript(textReply('Second answer.'));
    const regen = await engine.regenerate(slug, replyId);
    expect(regen.ok).toBe(true);
    await page(engine, slug, done('Second answer.'));

    const json = JSON.parse(text(await engine.exportConversation(slug, 'json')));
    expect(json.slug).toBe(slug);
    expect(json.messages.map((m: { role: string; prompt: string }) => [m.role, m.prompt])).toEqual([
      ['user', 'Tell me about Ωmega'],
      ['assistant', 'Second answer.'],
    ]);

    const second = await page(engine, slug, done('Second answer.'));
    const active = second.messages.find((m) => m.role === 'assistant')!;
    expect((await engine.switchBranch(slug, active.id, 'previous')).ok).toBe(true);
    await page(engine, slug, (v) => v.messages.some((m) => m.role === 'assistant' && m.text === 'First answer.'));
    const md = text(await engine.exportConversation(slug, 'markdown'));
    expect(md).toContain('First answer.');
    expect(md).not.toContain('Second answer.');
  });

  it('refuses an unknown or new conversation with the spec rule', async () => {
    const engine = newEngine();
    expect(await engine.exportConversation('', 'pdf')).toEqual({ ok: false, error: EXPORT_NOTICE.needsNamedConversation });
    expect(await engine.exportConversation('no-such-slug', 'markdown')).toEqual({ ok: false, error: EXPORT_NOTICE.needsNamedConversation });
    expect(await engine.exportAllConversations()).toEqual({ ok: false, error: EXPORT_NOTICE.nothingToArchive });
  });

  it('builds a PDF with the given faces, and a zip of every conversation', async () => {
    const engine = newEngine();
    const a = await chat(engine, 'Alpha topic', 'Alpha reply.');
    const b = await chat(engine, 'Beta topic', 'Beta reply.');
    const commands = exportCommands(engine, { loadFonts: async () => fonts, now: () => Date.UTC(2026, 0, 2) });
    const pdf = await commands.exportConversation(a, 'pdf');
    if (!pdf.ok) throw new Error(pdf.error);
    expect(pdf.mimeType).toBe('application/pdf');
    expect(pdf.fileName).toBe('Alpha-topic.pdf');
    expect(new TextDecoder().decode(new Uint8Array(pdf.bytes, 0, 5))).toBe('%PDF-');

    const zip = await commands.exportAllConversations();
    if (!zip.ok) throw new Error(zip.error);
    expect(zip.fileName).toBe('parley-conversations-2026-01-02.zip');
    const files = unzipSync(new Uint8Array(zip.bytes));
    const index = JSON.parse(strFromU8(files['index.json']!));
    expect(index.conversations.map((c: { slug: string }) => c.slug).sort()).toEqual([a, b].sort());
    expect(strFromU8(files['Beta-topic.md']!)).toContain('Beta reply.');
  });
});
