/**
 * The built-in offline image chat engine: NOT a model. It answers a chat request the way spec 000 section 7 says
 * the Gemini image model streams its answer, as JSON lines of `{type: 'text', text}` and
 * `{type: 'image', mimeType, data}`: a line of text about the prompt, one PNG painted deterministically from the
 * prompt (src/server/media/art.ts, the offline image engine's painter), and a closing line. It lets the whole path
 * (catalogue flag, stream, the engine storing the image on the message, the view showing it) work with no key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelInfo } from '../../../protocol/api';
import { IMAGE_LINES_CAPABILITY } from '../../../protocol/image-rules';
import { paint, sceneOf } from '../art';
import { encodePng } from '../png';
import { OFFLINE_PROVIDER_ID } from '../../providers/offline';
import type { OpenStreamResult, ProviderChatRequest, ProviderEvent, TextProvider } from '../../providers/types';

export const OFFLINE_IMAGE_CHAT_MODEL_ID = 'parley-offline-image-chat';
/** Side of the square picture it paints. */
export const OFFLINE_IMAGE_CHAT_SIZE = 256;

export const OFFLINE_IMAGE_CHAT_MODEL: ModelInfo = {
  id: OFFLINE_IMAGE_CHAT_MODEL_ID,
  name: 'Parley Offline Image Chat (built-in, no AI)',
  modality: 'text',
  provider: OFFLINE_PROVIDER_ID,
  pricing: { input: '0', output: '0' },
  capabilities: ['chat', 'streaming', IMAGE_LINES_CAPABILITY],
  free: true,
  offline: true,
  contextLength: 128_000,
  description:
    'Built into Parley. Not an AI model: answers in the chat with a line of text and a picture painted from your ' +
    'message, streamed as the Gemini image model streams (text and image lines). Works with no key and no network.',
};

/** The reply's lines, in order (each ends with a newline). */
export function imageChatLines(prompt: string): string[] {
  const subject = prompt.trim().replace(/\s+/g, ' ').slice(0, 200) || 'your message';
  const size = OFFLINE_IMAGE_CHAT_SIZE;
  const png = encodePng(paint(sceneOf(subject, 0), size, size), size, size);
  return [
    `${JSON.stringify({ type: 'text', text: `Here is a picture for "${subject}". ` })}\n`,
    `${JSON.stringify({ type: 'text', text: '(Painted by the built-in offline engine, not an AI model.)' })}\n`,
    `${JSON.stringify({ type: 'image', mimeType: 'image/png', data: Buffer.from(png).toString('base64') })}\n`,
    `${JSON.stringify({ type: 'text', text: '\n\nAsk again with other words for another picture.' })}\n`,
  ];
}

export class OfflineImageChatProvider implements TextProvider {
  readonly id = OFFLINE_PROVIDER_ID;
  constructor(private readonly options: { tokenDelayMs: number }) {}

  async open(req: ProviderChatRequest, signal: AbortSignal): Promise<OpenStreamResult> {
    if (signal.aborted) throw signal.reason;
    return { ok: true, events: this.events(req, signal) };
  }

  private async *events(req: ProviderChatRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    yield { type: 'model', model: OFFLINE_IMAGE_CHAT_MODEL_ID };
    let textChars = 0;
    for (const line of imageChatLines(req.conversation.prompt.text)) {
      if (this.options.tokenDelayMs > 0) await sleep(this.options.tokenDelayMs, undefined, { signal });
      else if (signal.aborted) throw signal.reason;
      if (line.startsWith('{"type":"text"')) textChars += line.length;
      yield { type: 'content', text: line };
    }
    yield { type: 'usage', inputTokens: req.conversation.inputTokens, outputTokens: Math.ceil(textChars / 4) + 258 };
  }
}
