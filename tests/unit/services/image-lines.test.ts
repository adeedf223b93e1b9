/** A chat reply in the Gemini image model's JSON lines (spec 000 section 7), decoded as it streams. */
import { describe, expect, it } from 'vitest';
import { IMAGE_LINES_CAPABILITY, INVALID_IMAGE_TYPE } from '../../../src/protocol/image-rules';
import { ImageLineReply, imageLinesFor } from '../../../src/worker/rooms/replies/image-lines';

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

describe('image-lines replies', () => {
  it('shows only the text parts while it streams, keeps the images aside, and counts the last line at the end', () => {
    const raw = [
      line({ type: 'text', text: 'Here is ' }),
      line({ type: 'text', text: 'a cat.' }),
      line({ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }),
      line({ type: 'image', mimeType: 'image/tiff', data: 'SUkq' }),
      JSON.stringify({ type: 'text', text: ' Done.' }),
    ].join('');
    const reply = new ImageLineReply();
    const seen: string[] = [];
    // The stream text grows a few characters at a time, splitting lines anywhere.
    for (let i = 7; i < raw.length; i += 7) seen.push(reply.update(raw.slice(0, i)));
    expect(seen.every((t) => !t.includes('iVBOR') && !t.includes('"type"'))).toBe(true);
    expect(reply.update(raw)).toBe(`Here is a cat.${INVALID_IMAGE_TYPE}`);
    reply.finish(raw);
    expect(reply.text).toBe(`Here is a cat.${INVALID_IMAGE_TYPE} Done.`);
    expect(reply.images).toEqual([{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
    // Finishing twice adds nothing.
    reply.finish(raw);
    expect(reply.text).toBe(`Here is a cat.${INVALID_IMAGE_TYPE} Done.`);
  });

  it('is used only for models the catalogue marks, with or without the web search suffix', () => {
    const models = [
      { id: 'gemini-image', capabilities: ['chat', IMAGE_LINES_CAPABILITY] },
      { id: 'plain', capabilities: ['chat'] },
    ];
    expect(imageLinesFor(models, 'gemini-image')).toBeInstanceOf(ImageLineReply);
    expect(imageLinesFor(models, 'gemini-image:online/linkup-deep')).toBeInstanceOf(ImageLineReply);
    expect(imageLinesFor(models, 'plain')).toBeUndefined();
    expect(imageLinesFor(models, 'unknown')).toBeUndefined();
  });
});
