import { describe, expect, it } from 'vitest';
import { makeEvent, type NewEvent } from '../../../src/events/catalogue';
import { checkPayload } from '../../../src/events/validate';
import { upcast } from '../../../src/events/upcasters';
import { fold } from '../../../src/projections/fold';
import { foldFavourites, foldModelSettings } from '../../../src/projections/model-settings';

const ref = { fileId: 11, thumbId: 12, mimeType: 'image/png', width: 64, height: 64, bytes: 900 };
const conv = { id: 1, uuid: 'u', slug: 's', name: 'n', createdAt: 1, updatedAt: 1, latestMessage: '', isMediaOnly: true };
const msg = (id: number, role: 'user' | 'assistant', status: 'done' | 'pending') => ({
  id, conversationSlug: 's', timestamp: id, role, prompt: role === 'user' ? 'a cat' : '', model: 'm', status,
  parentMessageId: id === 2 ? 1 : null, alternativeGroup: null, branchIndex: 0, isActiveBranch: true, branchDepth: 0, updatedAt: id,
});

describe('media events', () => {
  const events: NewEvent[] = [
    makeEvent('conversation.created', { conversation: conv }, 'e1', 1),
    makeEvent('message.added', { message: msg(1, 'user', 'done') }, 'e2', 1),
    makeEvent('message.added', { message: msg(2, 'assistant', 'pending') }, 'e3', 2),
    makeEvent('image.generated', { messageId: 2, conversationSlug: 's', images: [ref], splitImages: false, taskId: null, cost: 0.04, paymentSource: 'USD', isNSFW: false, at: 3 }, 'e4', 3),
    makeEvent('message.added', { message: { ...msg(3, 'assistant', 'pending'), parentMessageId: 2 } }, 'e5', 4),
    makeEvent('video.requested', { messageId: 3, conversationSlug: 's', runId: 'vid_1', model: 'v', at: 5 }, 'e6', 5),
    makeEvent('video.statusChanged', { messageId: 3, conversationSlug: 's', status: 'processing', videoUrl: null, videoFileId: null, error: null, cost: 0, paymentSource: null, at: 6 }, 'e7', 6),
    makeEvent('video.statusChanged', { messageId: 3, conversationSlug: 's', status: 'error', videoUrl: null, videoFileId: null, error: 'Timed out waiting for video generation', cost: 0, paymentSource: null, at: 7 }, 'e8', 7),
    makeEvent('image.favourited', { fileId: 11, favourite: true, at: 8 }, 'e9', 8),
    makeEvent('modelSettings.changed', { modelId: 'm', settings: { nImages: 2, aspect_ratio: '16:9' }, at: 9 }, 'e10', 9),
    makeEvent('modelSettings.changed', { modelId: 'm', settings: { nImages: 3 }, at: 10 }, 'e11', 10),
    makeEvent('image.favourited', { fileId: 11, favourite: false, at: 11 }, 'e12', 11),
  ];

  it('validate, and replay into the message rows', () => {
    for (const e of events) expect(checkPayload(e.type, e.payload)).toBeNull();
    const store = fold(events.map((e) => upcast({ ...e, seq: 1 }, { validate: true })));
    expect(store.get('messages', 2)).toMatchObject({ status: 'done', images: [ref], cost: 0.04, paymentSource: 'USD' });
    expect(store.get('messages', 3)).toMatchObject({ videoGenerationId: 'vid_1', videoStatus: 'error', status: 'error', hasError: true, error: 'Timed out waiting for video generation' });
    expect(store.get('conversations', 1)?.latestMessage).toBe('[1 image]');
    expect(foldModelSettings(events)).toEqual({ m: { nImages: 3, aspect_ratio: '16:9' } });
    expect(foldFavourites(events).size).toBe(0);
    expect(foldFavourites(events.slice(0, 9)).has(11)).toBe(true);
  });

  it('name the field that is wrong', () => {
    expect(checkPayload('image.generated', { messageId: 2, conversationSlug: 's', images: [{ ...ref, fileId: 'x' }], splitImages: false, taskId: null, cost: 0, paymentSource: null, isNSFW: false, at: 1 })).toContain('payload.images');
    expect(checkPayload('video.statusChanged', { messageId: 3, conversationSlug: 's', status: 'done', videoUrl: null, videoFileId: null, error: null, cost: 0, paymentSource: null, at: 1 })).toContain('payload.status');
    expect(checkPayload('modelSettings.changed', { modelId: 'm', settings: { seed: {} }, at: 1 })).toContain('payload.settings');
    expect(checkPayload('image.favourited', { fileId: 1.5, favourite: true, at: 1 })).toContain('payload.fileId');
  });
});
