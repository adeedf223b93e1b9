/**
 * A chat reply in the Gemini image model's JSON lines (spec 000 section 7; models with the catalogue capability
 * IMAGE_LINES_CAPABILITY): the stream's text is lines of `{type: 'text'}` and `{type: 'image'}`. This decodes it
 * as it grows, so the live text, the checkpoints and the stored reply are the text parts only (never base64), and
 * the images are kept aside until the reply ends, when the reply runner stores them as Blobs and appends
 * `image.generated` with its `reply.completed` (rooms/replies/reply-runner.ts, core.ts `storeReplyImages`).
 */
import { GeminiLineParser, IMAGE_LINES_CAPABILITY } from '../../../protocol/image-rules';

export interface LineImage {
  mimeType: string;
  /** Base64. */
  data: string;
}

export class ImageLineReply {
  private readonly parser = new GeminiLineParser();
  /** Characters of the raw stream text decoded so far (that text only grows). */
  private seen = 0;
  private ended = false;
  text = '';
  readonly images: LineImage[] = [];

  /** The decoded text after `raw` (the whole stream text so far); only the new part is parsed. */
  update(raw: string): string {
    if (!this.ended && raw.length > this.seen) {
      this.take(this.parser.push(raw.slice(this.seen)));
      this.seen = raw.length;
    }
    return this.text;
  }

  /** The stream ended: its last line counts even without a newline. */
  finish(raw: string): void {
    this.update(raw);
    if (this.ended) return;
    this.ended = true;
    this.take(this.parser.end());
  }

  private take(parts: ReturnType<GeminiLineParser['push']>): void {
    for (const p of parts) {
      if (p.type === 'text') this.text += p.text;
      else this.images.push({ mimeType: p.mimeType, data: p.data });
    }
  }
}

/** A decoder for a reply of `modelId` when the catalogue says it answers in image lines. */
export function imageLinesFor(models: readonly { id: string; capabilities: readonly string[] }[], modelId: string): ImageLineReply | undefined {
  const base = modelId.replace(/:online(\/linkup-deep)?$/, '');
  const model = models.find((m) => m.id === base);
  return model?.capabilities.includes(IMAGE_LINES_CAPABILITY) ? new ImageLineReply() : undefined;
}
