/**
 * The media events' writes to the `messages` table (joined into ./messages.ts): an image message gets its images or
 * its answer, a video message its job id and status. Pure.
 */
import type { MessageRow } from '../events/model';
import type { Materializers } from './projection';
import { update } from './writes';

export const mediaMessageMaterializers: Materializers = {
  'image.generated': (p, event) => {
    const changes: Partial<MessageRow> = { images: p.images, status: 'done', cost: p.cost, prompt: '', updatedAt: event.at };
    if (p.splitImages) changes.splitImages = true;
    if (p.taskId !== null) changes.midjourneyTaskId = p.taskId;
    if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
    if (p.isNSFW) changes.isNSFW = true;
    return [update('messages', p.messageId, changes)];
  },
  'image.answered': (p, event) => {
    const changes: Partial<MessageRow> = { prompt: p.text, status: 'done', cost: 0, updatedAt: event.at };
    if (p.recommendedModel !== null) changes.recommendedImageModel = p.recommendedModel;
    if (p.recommendedModelName !== null) changes.recommendedImageModelFriendlyName = p.recommendedModelName;
    if (p.isNSFW) changes.isNSFW = true;
    if (p.requiresExplicitMode) changes.requiresExplicitMode = true;
    return [update('messages', p.messageId, changes)];
  },
  'video.requested': (p, event) => [update('messages', p.messageId, { videoGenerationId: p.runId, videoStatus: 'pending', status: 'done', updatedAt: event.at })],
  'video.statusChanged': (p, event) => {
    const changes: Partial<MessageRow> = { videoStatus: p.status, updatedAt: event.at };
    if (p.videoUrl !== null) changes.videoUrl = p.videoUrl;
    if (p.videoFileId !== null) changes.videoFileId = p.videoFileId;
    if (p.status === 'completed') {
      changes.cost = p.cost;
      if (p.paymentSource !== null) changes.paymentSource = p.paymentSource;
    }
    if (p.error !== null) {
      changes.error = p.error;
      changes.hasError = true;
      changes.status = 'error';
    }
    return [update('messages', p.messageId, changes)];
  },
};
