/**
 * The engine's share room (issue 20): a conversation's events as a file or a published link; the owner token kept
 * by the engine (never in the log) deletes it; a redacted share carries no words.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { decodeLog, encodeLog } from '../../../src/events/codec';
import { conversationState, foldState, slugsOf } from '../../../src/inspect';
import { promptText } from '../../../src/projections/projection';
import { NOTHING_TO_SHARE } from '../../../src/worker/rooms/share/commands';
import { inspectorLog } from '../inspect/fixture';
import { useTestGateway } from './test-gateway';

const { newEngine } = useTestGateway();
const events = inspectorLog(200);
const slug = slugsOf(events.find((e) => e.type === 'message.branched')!)[0]!;

describe('share room', () => {
  it('saves a file, publishes a link anyone can read, deletes it with the token it keeps', async () => {
    const engine = newEngine();
    await engine.importLog(encodeLog(events, { exportedAt: 1 }));
    expect(await engine.shareFile('no-such-conversation', { redact: false })).toEqual({ ok: false, error: NOTHING_TO_SHARE });

    const file = await engine.shareFile(slug, { redact: false });
    if (!file.ok) throw new Error(file.error);
    const shared = decodeLog(file.text).events;
    expect(conversationState(foldState(shared), slug).messages).toEqual(conversationState(foldState(events), slug).messages);
    expect(file.fileName).toMatch(/^parley-share-.+\.ndjson$/);

    expect(await engine.shareLink(slug)).toBeNull();
    const published = await engine.publishShare(slug, { redact: false });
    if (!published.ok) throw new Error(published.error);
    expect(published.link.url).toBe(`/share/${published.link.id}`);
    expect(await engine.shareLink(slug)).toEqual(published.link);
    const read = await fetch(`${published.link.url}/log`);
    expect(read.status).toBe(200);
    expect(decodeLog(await read.text()).events.map((e) => e.id)).toEqual(shared.map((e) => e.id));
    // The owner token is in no export.
    expect(await engine.exportLog()).not.toContain(published.link.id);

    // Publishing again replaces the link: the old one is gone.
    const again = await engine.publishShare(slug, { redact: true });
    if (!again.ok) throw new Error(again.error);
    expect((await fetch(`${published.link.url}/log`)).status).toBe(404);
    const redacted = decodeLog(await (await fetch(`${again.link.url}/log`)).text()).events;
    for (const m of conversationState(foldState(redacted), slug).messages) expect(promptText(m.prompt)).toMatch(/^[x\s!-/:-@[-`{-~]*$/);

    expect(await engine.deleteShare(slug)).toEqual({ ok: true });
    expect((await fetch(`${again.link.url}/log`)).status).toBe(404);
    expect((await fetch(again.link.url)).status).toBe(404);
    expect(await engine.shareLink(slug)).toBeNull();
  });
});
