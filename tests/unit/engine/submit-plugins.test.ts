/**
 * The submit flow's plug-in points: a mode's handler (steps 6 and 7) and the attachment step (step 3) come from
 * their own modules. A fake image handler and a fake describer stand in for the issues that build them.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { firstValueFrom } from 'rxjs';
import type { ModelInfo } from '../../../src/protocol/api';
import type { Engine } from '../../../src/worker/engine';
import { REPLY_IN_PROGRESS } from '../../../src/worker/engine';
import { registerAttachmentStep, registerModeHandler, type Submission } from '../../../src/worker/commands/submit-plugins';
import { ATTACHMENTS_UNAVAILABLE, MODE_UNAVAILABLE } from '../../../src/worker/services/messages';
import { textReply } from '../server/fake-upstream';
import { useEngineStack } from './harness';

const stack = useEngineStack(() => textReply('one two three four five six seven eight', { delayMs: 80 }), ['fake-model']);

const IMAGE_MODEL: ModelInfo = { id: 'fake-image', name: 'Fake image', modality: 'image', provider: 'fake', pricing: { input: '0', output: '0' }, capabilities: [], free: true, offline: true };

async function withImageModel(engine: Engine): Promise<void> {
  await engine.whenStarted();
  await engine.loadModels();
  engine.models$.next({ ...engine.models$.value, models: [...engine.models$.value.models, IMAGE_MODEL] });
}

describe('submit plug-ins', () => {
  it('a mode without a handler is refused plainly; once registered, its handler gets steps 6-7 with steps 4-5 ready, in one append', async () => {
    const engine = stack.engine('plugins-mode');
    await withImageModel(engine);
    expect(await firstValueFrom(engine.observe({ kind: 'modes' }))).toEqual(['chat', 'audio', 'voice']);
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: IMAGE_MODEL.id, mode: 'image' })).toEqual({ ok: false, error: MODE_UNAVAILABLE.image });

    const seen: Submission[] = [];
    registerModeHandler(engine, {
      mode: 'image',
      queueable: false,
      multiModel: false,
      accepts: (m) => m.modality === 'image',
      validate: (input) => (input.prompt.length > 50 ? 'Too long for this model' : null),
      async run(s) {
        seen.push(s);
        await s.core.append(s.events);
        return { ok: true, slug: s.conversation.slug, userMessageId: s.user.id };
      },
    });
    expect(await firstValueFrom(engine.observe({ kind: 'modes' }))).toEqual(['chat', 'image', 'audio', 'voice']);
    expect(await engine.sendMessage({ slug: null, prompt: 'x'.repeat(51), model: IMAGE_MODEL.id, mode: 'image' })).toEqual({ ok: false, error: 'Too long for this model' });
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: 'fake-model', mode: 'image' })).toMatchObject({ ok: false });
    expect(await engine.sendMessage({ slug: null, prompt: 'a cat', model: IMAGE_MODEL.id, mode: 'image', extraModels: ['fake-model'] })).toMatchObject({ ok: false });

    const r = await engine.sendMessage({ slug: null, prompt: 'a cat', model: IMAGE_MODEL.id, mode: 'image' });
    if (!r.ok) throw new Error(r.error);
    expect(seen).toHaveLength(1);
    const s = seen[0] as Submission;
    expect(s.events.map((e) => e.type)).toEqual(['conversation.created', 'message.added']);
    expect(s.user).toMatchObject({ role: 'user', prompt: 'a cat', mode: 'image', model: IMAGE_MODEL.id });
    expect(s.conversation.isMediaOnly).toBe(true);
    const stored = await engine.db.messages.where('conversationSlug').equals(r.slug).toArray();
    expect(stored.map((m) => m.prompt)).toEqual(['a cat']);
  });

  it('attachments are refused plainly until an attachment step exists; then step 3 rewrites the prompt before the message is stored', async () => {
    const engine = stack.engine('plugins-attach');
    await engine.whenStarted();
    expect(await engine.sendMessage({ slug: null, prompt: 'what is this?', model: 'fake-model', attachments: ['lib-1'] })).toEqual({ ok: false, error: ATTACHMENTS_UNAVAILABLE });
    expect(await engine.db.events.count()).toBe(0);

    const calls: string[][] = [];
    registerAttachmentStep(engine, {
      async prepare(_core, request) {
        calls.push([...request.attachments]);
        return { prompt: `${request.prompt}\n\n[Image: a red square]`, attachments: [], events: [] };
      },
    });
    const r = await engine.sendMessage({ slug: null, prompt: 'what is this?', model: 'fake-model', attachments: ['lib-1', 'lib-1'] });
    if (!r.ok) throw new Error(r.error);
    expect(calls).toEqual([['lib-1']]);
    const user = (await engine.db.messages.where('conversationSlug').equals(r.slug).toArray()).find((m) => m.role === 'user');
    expect(user?.prompt).toBe('what is this?\n\n[Image: a red square]');
  });

  it('while a reply generates, a mode that does not queue is refused with its reason (chat queues)', async () => {
    const engine = stack.engine('plugins-pending');
    await withImageModel(engine);
    registerModeHandler(engine, { mode: 'image', queueable: false, multiModel: false, accepts: (m) => m.modality === 'image', run: async (s) => ({ ok: true, slug: s.conversation.slug, userMessageId: s.user.id }) });
    const first = await engine.sendMessage({ slug: null, prompt: 'tell me', model: 'fake-model' });
    if (!first.ok) throw new Error(first.error);
    expect(await engine.sendMessage({ slug: first.slug, prompt: 'a cat', model: IMAGE_MODEL.id, mode: 'image' })).toEqual({ ok: false, error: REPLY_IN_PROGRESS });
    expect(await engine.sendMessage({ slug: first.slug, prompt: 'and more', model: 'fake-model' })).toMatchObject({ ok: true, queued: true });
  });
});
