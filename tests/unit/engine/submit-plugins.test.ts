/**
 * The submit flow's plug-in points: a mode's handler (steps 6 and 7) and the attachment step (step 3) come from
 * their own modules. A fake audio handler stands in for the issue that builds it; the library's attachment step is the real one.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { firstValueFrom } from 'rxjs';
import type { ModelInfo } from '../../../src/protocol/api';
import type { Engine } from '../../../src/worker/engine';
import { REPLY_IN_PROGRESS } from '../../../src/worker/engine';
import { registerAttachmentStep, registerModeHandler, type Submission } from '../../../src/worker/commands/submit-plugins';
import { MODE_UNAVAILABLE } from '../../../src/worker/services/messages';
import { FILE_GONE } from '../../../src/worker/services/library/submit-attachments';
import { textReply } from '../server/fake-upstream';
import { useEngineStack } from './harness';

const stack = useEngineStack(() => textReply('one two three four five six seven eight', { delayMs: 80 }), ['fake-model']);

const AUDIO_MODEL: ModelInfo = { id: 'fake-audio', name: 'Fake audio', modality: 'audio', provider: 'fake', pricing: { input: '0', output: '0' }, capabilities: [], free: true, offline: true };

async function withImageModel(engine: Engine): Promise<void> {
  await engine.whenStarted();
  await engine.loadModels();
  engine.models$.next({ ...engine.models$.value, models: [...engine.models$.value.models, AUDIO_MODEL] });
}

describe('submit plug-ins', () => {
  it('a mode without a handler is refused plainly; once registered, its handler gets steps 6-7 with steps 4-5 ready, in one append', async () => {
    const engine = stack.engine('plugins-mode');
    await withImageModel(engine);
    expect(await firstValueFrom(engine.observe({ kind: 'modes' }))).toEqual(['chat', 'image', 'video']);
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio' })).toEqual({ ok: false, error: MODE_UNAVAILABLE.audio });

    const seen: Submission[] = [];
    registerModeHandler(engine, {
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
    expect(await firstValueFrom(engine.observe({ kind: 'modes' }))).toEqual(['chat', 'image', 'video', 'audio']);
    expect(await engine.sendMessage({ slug: null, prompt: 'x'.repeat(51), model: AUDIO_MODEL.id, mode: 'audio' })).toEqual({ ok: false, error: 'Too long for this model' });
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: 'fake-model', mode: 'audio' })).toMatchObject({ ok: false });
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio', extraModels: ['fake-model'] })).toMatchObject({ ok: false });

    const r = await engine.sendMessage({ slug: null, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio' });
    if (!r.ok) throw new Error(r.error);
    expect(seen).toHaveLength(1);
    const s = seen[0] as Submission;
    expect(s.events.map((e) => e.type)).toEqual(['conversation.created', 'message.added']);
    expect(s.user).toMatchObject({ role: 'user', prompt: 'a cat', mode: 'audio', model: AUDIO_MODEL.id });
    expect(s.conversation.isMediaOnly).toBe(true);
    const stored = await engine.db.messages.where('conversationSlug').equals(r.slug).toArray();
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
    const engine = stack.engine('plugins-pending');
    await withImageModel(engine);
    registerModeHandler(engine, { mode: 'audio', queueable: false, multiModel: false, accepts: (m) => m.modality === 'audio', run: async (s) => ({ ok: true, slug: s.conversation.slug, userMessageId: s.user.id }) });
    const first = await engine.sendMessage({ slug: null, prompt: 'tell me', model: 'fake-model' });
    if (!first.ok) throw new Error(first.error);
    expect(await engine.sendMessage({ slug: first.slug, prompt: 'a cat', model: AUDIO_MODEL.id, mode: 'audio' })).toEqual({ ok: false, error: REPLY_IN_PROGRESS });
    expect(await engine.sendMessage({ slug: first.slug, prompt: 'and more', model: 'fake-model' })).toMatchObject({ ok: true, queued: true });
  });
});
