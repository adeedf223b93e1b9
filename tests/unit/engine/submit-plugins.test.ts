/**
 * The submit flow's plug-in points: a mode's handler (steps 6 and 7) and the attachment step (step 3) come from
 * their own modules. Every mode is built now, so the mode plug-in is tried on a bare engine core with only chat
 * composed, where a fake audio handler stands in; the library's attachment step is the real one.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { firstValueFrom } from 'rxjs';
import type { ModelInfo } from '../../../src/protocol/api';
import { EngineCore } from '../../../src/worker/core';
import { REPLY_IN_PROGRESS } from '../../../src/worker/engine';
import { chatCommands } from '../../../src/worker/rooms/chat/commands';
import { availableModes, registerAttachmentStep, registerModeHandler, type Submission } from '../../../src/worker/rooms/replies/submit-plugins';
import { MODE_UNAVAILABLE } from '../../../src/shared/messages';
import { FILE_GONE } from '../../../src/worker/rooms/library/submit-attachments';
import { textReply } from '../server/fake-upstream';
import { useEngineStack } from './harness';

const stack = useEngineStack(() => textReply('one two three four five six seven eight', { delayMs: 80 }), ['fake-model']);

const AUDIO_MODEL: ModelInfo = { id: 'fake-audio', name: 'Fake audio', modality: 'audio', provider: 'fake', pricing: { input: '0', output: '0' }, capabilities: [], free: true, offline: true };

/** An engine core with only the chat domain composed (no other mode registered) and the fake audio model listed. */
async function chatOnlyCore(dbName: string): Promise<{ core: EngineCore; send: ReturnType<typeof chatCommands>['sendMessage'] }> {
  const core = new EngineCore({ requestReload: () => undefined, storeMarker: () => undefined, dbName });
  cores.push(core);
  const { sendMessage } = chatCommands(core);
  await core.whenStarted();
  await core.loadModels();
  core.models$.next({ ...core.models$.value, models: [...core.models$.value.models, AUDIO_MODEL] });
  return { core, send: sendMessage };
}
const cores: EngineCore[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) await c.dispose();
});

describe('submit plug-ins', () => {
  it('the engine composes every mode of the Mode group, in its order, and a second handler for a mode is refused', async () => {
    const engine = stack.engine('plugins-all');
    await engine.whenStarted();
    expect(await firstValueFrom(engine.observe({ kind: 'modes' }))).toEqual(['chat', 'image', 'video', 'audio', 'voice']);
    expect(() => registerModeHandler(engine, { mode: 'audio', queueable: false, multiModel: false, accepts: () => true, run: async () => ({ ok: false, error: 'x' }) })).toThrow(/registered already/);
  });

  it('a mode without a handler is refused plainly; once registered, its handler gets steps 6-7 with steps 4-5 ready, in one append', async () => {
    const { core, send } = await chatOnlyCore('plugins-mode');
    expect(availableModes(core)).toEqual(['chat']);
    expect(await send({ slug: null, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio' })).toEqual({ ok: false, error: MODE_UNAVAILABLE.audio });

    const seen: Submission[] = [];
    registerModeHandler(core, {
      mode: 'audio',
      queueable: false,
      multiModel: false,
      accepts: (m) => m.modality === 'audio',
      validate: (input) => (input.prompt.length > 50 ? 'Too long for this model' : null),
      async run(s) {
        seen.push(s);
        await s.core.append(s.events);
        return { ok: true, slug: s.conversation.slug, userMessageId: s.user.id };
      },
    });
    expect(availableModes(core)).toEqual(['chat', 'audio']);
    expect(await send({ slug: null, prompt: 'x'.repeat(51), model: AUDIO_MODEL.id, mode: 'audio' })).toEqual({ ok: false, error: 'Too long for this model' });
    expect(await send({ slug: null, prompt: 'a cat', model: 'fake-model', mode: 'audio' })).toMatchObject({ ok: false });
    expect(await send({ slug: null, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio', extraModels: ['fake-model'] })).toMatchObject({ ok: false });

    const r = await send({ slug: null, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio' });
    if (!r.ok) throw new Error(r.error);
    expect(seen).toHaveLength(1);
    const s = seen[0] as Submission;
    expect(s.events.map((e) => e.type)).toEqual(['conversation.created', 'message.added']);
    expect(s.user).toMatchObject({ role: 'user', prompt: 'a cat', mode: 'audio', model: AUDIO_MODEL.id });
    expect(s.conversation.isMediaOnly).toBe(true);
    const stored = await core.db.messages.where('conversationSlug').equals(r.slug).toArray();
    expect(stored.map((m) => m.prompt)).toEqual(['a cat']);
  });

  it("the library registers step 3 once per engine; a second step is refused; an attachment the library lacks refuses the submit before anything is stored", async () => {
    const engine = stack.engine('plugins-attach');
    await engine.whenStarted();
    expect(() => registerAttachmentStep(engine, { prepare: async (_core, r) => ({ prompt: r.prompt, attachments: [], events: [] }) })).toThrow('An attachment step is registered already');
    expect(await engine.sendMessage({ slug: null, prompt: 'what is this?', model: 'fake-model', attachments: ['lib-1'] })).toEqual({ ok: false, error: FILE_GONE });
    expect(await engine.sendMessage({ slug: null, prompt: 'what is this?', model: 'fake-model', attachments: ['123456'] })).toEqual({ ok: false, error: FILE_GONE });
    expect(await engine.db.events.count()).toBe(0);
  });

  it('while a reply generates, a mode that does not queue is refused with its reason (chat queues)', async () => {
    const { core, send } = await chatOnlyCore('plugins-pending');
    registerModeHandler(core, { mode: 'audio', queueable: false, multiModel: false, accepts: (m) => m.modality === 'audio', run: async (s) => ({ ok: true, slug: s.conversation.slug, userMessageId: s.user.id }) });
    const first = await send({ slug: null, prompt: 'tell me', model: 'fake-model' });
    if (!first.ok) throw new Error(first.error);
    expect(await send({ slug: first.slug, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio' })).toEqual({ ok: false, error: REPLY_IN_PROGRESS });
    expect(await send({ slug: first.slug, prompt: 'and more', model: 'fake-model' })).toMatchObject({ ok: true, queued: true });
  });
});
