/**
 * Step 7 of the submit flow in image mode: POST /api/generate-image, then the images are stored as Blobs and
 * `image.generated` is appended; an answer without images (a recommended model, an explicit prompt) is
 * `image.answered`; a failure marks the user message with 'There was an issue generating your image. You have not
 * been charged.' (spec 000 section 8) and raises the classified notice.
 */
import { makeEvent } from '../../../events/catalogue';
import type { ImageRef } from '../../../events/model';
import { IMAGE_FAILED, type GenerateImageRequest, type GenerateImageResponse } from '../../../protocol/media';
import { noticeCurrency } from '../../../protocol/money-format';
import type { EngineCore } from '../../core';
import { classifyModelError } from '../../infra/errors';
import { MODEL_ERROR } from '../../../shared/messages';
import { gateway, GatewayError } from '../../infra/gateway';
import type { LiveReply } from '../replies/reply-runner';
import { blobOfBase64, splitGrid, storeImage } from '../../infra/files';

/** Ours: what the assistant says when the prompt needs explicit mode (spec 000 section 6). */
export const EXPLICIT_MODE_TEXT = 'This prompt was flagged as explicit. Turn on "Show explicit content (18+)" in Settings to generate it.';

function currency(core: EngineCore): 'USD' | 'XNO' {
  return noticeCurrency(core.session$.value.session);
}

async function storeAnswer(core: EngineCore, answer: GenerateImageResponse, now: number): Promise<{ images: ImageRef[]; split: boolean }> {
  const images: ImageRef[] = [];
  let split = false;
  for (const item of answer.data ?? []) {
    const blob = blobOfBase64(item.b64_json, item.mimeType ?? 'image/png');
    const parts = answer.quadrants ? await splitGrid(blob).catch(() => null) : null;
    if (parts) {
      split = true;
      for (const p of parts) images.push(await storeImage(core.db, core.ids, p, now));
    } else images.push(await storeImage(core.db, core.ids, blob, now));
  }
  return { images, split };
}

export async function runImage(core: EngineCore, reply: LiveReply, request: GenerateImageRequest): Promise<void> {
  const base = { messageId: reply.messageId, conversationSlug: reply.slug };
  try {
    // Not aborted by Stop: a generation the gateway has started is paid for, so its images are always kept.
    const answer = await gateway.generateImage(request);
    const now = Date.now();
    if (answer.data && answer.data.length > 0) {
      const { images, split } = await storeAnswer(core, answer, now);
      await core.append([
        makeEvent('image.generated', { ...base, images, splitImages: split, taskId: answer.task_id ?? null, cost: answer.cost ?? 0, paymentSource: answer.paymentSource ?? null, isNSFW: answer.isNSFW === true, at: now }, crypto.randomUUID(), now),
      ]);
      return;
    }
    const text = answer.requiresExplicitMode ? EXPLICIT_MODE_TEXT : (answer.explanation ?? IMAGE_FAILED);
    await core.append([
      makeEvent('image.answered', { ...base, text, recommendedModel: answer.recommendedModel ?? null, recommendedModelName: answer.recommendedModelName ?? null, isNSFW: answer.isNSFW === true, requiresExplicitMode: answer.requiresExplicitMode === true, at: now }, crypto.randomUUID(), now),
    ]);
  } catch (error) {
    const now = Date.now();
    const status = error instanceof GatewayError ? error.status : undefined;
    const body = error instanceof GatewayError ? error.body : null;
    const notice = classifyModelError({ status, code: body?.error, message: body?.message ?? (error instanceof Error ? error.message : String(error)), body, currency: currency(core) });
    // A generic failure shows the spec's own text (nothing was charged).
    core.notify(notice.title === MODEL_ERROR.sendErrorTitle || status === 502 || status === undefined ? { ...notice, title: IMAGE_FAILED, text: '' } : notice);
    const errorText = status === 402 ? notice.title : IMAGE_FAILED;
    await core.append([
      makeEvent('reply.failed', { ...base, userMessageId: reply.userMessageId, error: errorText, keepPartial: false, text: '', thinking: '', cost: 0, paymentSource: null, at: now }, crypto.randomUUID(), now),
    ]);
  }
}
