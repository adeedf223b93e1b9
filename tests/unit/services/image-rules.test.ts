import { describe, expect, it } from 'vitest';
import { scaling } from '../server/scaling';
import { addInputImage, fitInputImages, freeFluxLeft, GeminiLineParser, imagePrompt, INVALID_IMAGE_TYPE, isImageChatModel, maxInputImages, quadrants, takeFreeFlux, utcDate } from '../../../src/protocol/image-rules';

describe('empty prompts (spec 000 section 5)', () => {
  it('ghiblify and Upscaler fill them; other models refuse them', () => {
    expect(imagePrompt('ghiblify', '  ')).toBe('Ghiblify');
    expect(imagePrompt('fal/Upscaler', '')).toBe('Upscale');
    expect(imagePrompt('flux-schnell', ' \n')).toBeNull();
    expect(imagePrompt('ghiblify', ' my cat ')).toBe('my cat');
  });
});

describe('image-to-image inputs (spec 000 section 5)', () => {
  it('gpt-image-1 takes up to 4, gpt-4o-image 5, others keep one and replace it', () => {
    expect(maxInputImages('gpt-image-1')).toBe(4);
    expect(maxInputImages('openai/gpt-4o-image')).toBe(5);
    expect(maxInputImages('flux-kontext')).toBe(1);
    let list: string[] = [];
    for (const x of ['a', 'b', 'c', 'd']) list = addInputImage('gpt-image-1', list, x).images;
    expect(list).toEqual(['a', 'b', 'c', 'd']);
    expect(addInputImage('gpt-image-1', list, 'e')).toEqual({ images: ['a', 'b', 'c', 'd'], added: false });
    expect(addInputImage('gpt-4o-image', list, 'e')).toEqual({ images: ['a', 'b', 'c', 'd', 'e'], added: true });
    expect(addInputImage('flux-kontext', ['a'], 'b')).toEqual({ images: ['b'], added: true });
    expect(fitInputImages('flux-kontext', ['a', 'b', 'c'])).toEqual(['c']);
    expect(fitInputImages('gpt-image-1', ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('free flux-schnell counter (count:date)', () => {
  it('counts ten a day and resets when the date differs', () => {
    const day1 = utcDate(Date.UTC(2025, 0, 31, 23, 59, 59));
    const day2 = utcDate(Date.UTC(2025, 1, 1, 0, 0, 0));
    expect(day1).toBe('2025-01-31');
    expect(day2).toBe('2025-02-01');
    let value: string | null = null;
    for (let i = 0; i < 10; i++) {
      const next = takeFreeFlux(value, day1);
      expect(next?.left).toBe(9 - i);
      value = next?.value ?? null;
    }
    expect(value).toBe('10:2025-01-31');
    expect(takeFreeFlux(value, day1)).toBeNull();
    expect(freeFluxLeft(value, day1)).toBe(0);
    expect(freeFluxLeft(value, day2)).toBe(10);
    expect(takeFreeFlux(value, day2)).toEqual({ value: '1:2025-02-01', left: 9 });
  });
  it('reads a broken value as none used', () => {
    for (const v of ['', 'x', '3', '3:', ':2025-01-01', '-1:2025-01-01', '3:2025-1-1']) expect(freeFluxLeft(v, '2025-01-01')).toBe(10);
  });
});

describe('splitImages quadrants', () => {
  it('four rectangles covering the grid exactly, also for odd sizes', () => {
    expect(quadrants(1024, 1024)).toEqual([
      { x: 0, y: 0, width: 512, height: 512 },
      { x: 512, y: 0, width: 512, height: 512 },
      { x: 0, y: 512, width: 512, height: 512 },
      { x: 512, y: 512, width: 512, height: 512 },
    ]);
    const q = quadrants(101, 51);
    expect(q.reduce((n, r) => n + r.width * r.height, 0)).toBe(101 * 51);
    expect(q[3]).toEqual({ x: 50, y: 25, width: 51, height: 26 });
  });
});

describe('Gemini image JSON lines', () => {
  it('text and images, lines split across chunks, broken lines kept as text', () => {
    const p = new GeminiLineParser();
    const out = [
      ...p.push('{"type":"text","text":"Here is"}\n{"type":"ima'),
      ...p.push('ge","mimeType":"image/png","data":"iVBO"}\n{"type":"image","mimeType":"image/jpg","data":"/9j/"}\n'),
      ...p.push('{"type":"image","mimeType":"image/svg+xml","data":"PHN2Zz4="}\n{broken json\n\n'),
      ...p.push('{"type":"image","mimeType":"webp","data":"UklG"}'),
      ...p.end(),
    ];
    expect(out).toEqual([
      { type: 'text', text: 'Here is' },
      { type: 'image', mimeType: 'image/png', data: 'iVBO' },
      { type: 'image', mimeType: 'image/jpeg', data: '/9j/' },
      { type: 'text', text: INVALID_IMAGE_TYPE },
      { type: 'text', text: '{broken json' },
      { type: 'image', mimeType: 'image/webp', data: 'UklG' },
    ]);
  });
  it('each accepted type, and an image without data', () => {
    for (const t of ['png', 'jpeg', 'jpg', 'gif', 'webp']) {
      expect(new GeminiLineParser().push(`{"type":"image","mimeType":"image/${t}","data":"AA=="}\n`)[0]?.type).toBe('image');
    }
    expect(new GeminiLineParser().push('{"type":"image","mimeType":"image/png"}\n')).toEqual([{ type: 'text', text: INVALID_IMAGE_TYPE }]);
    expect(new GeminiLineParser().push('{"type":"image","mimeType":"image/bmp","data":"Qk0="}\n')).toEqual([{ type: 'text', text: INVALID_IMAGE_TYPE }]);
  });
  it('one long image line in many small chunks: whole, and read in time linear in its length', () => {
    const line = (n: number): string[] => {
      const text = `{"type":"image","mimeType":"image/png","data":"${'A'.repeat(n)}"}\n`;
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i += 1024) pieces.push(text.slice(i, i + 1024));
      return pieces;
    };
    const read = (pieces: string[]): number => {
      const p = new GeminiLineParser();
      let size = 0;
      for (const c of pieces) for (const part of p.push(c)) size += part.type === 'image' ? part.data.length : 0;
      return size;
    };
    expect(read(line(300_000))).toBe(300_000);
    // Joining the pieces on every chunk (as a `rest + chunk` parser does) is quadratic: 8 times the bytes would cost
    // about 64 times as much.
    const r = scaling(line, read, 256 * 1024, 8);
    expect(r.ratio, `CPU µs ${r.small.toFixed(0)} -> ${r.large.toFixed(0)}`).toBeLessThan(20);
  });
});

describe('image chat models of a provider', () => {
  it('Gemini image models and gpt-5-image, by the last segment of the id', () => {
    for (const id of ['google/gemini-2.5-flash-image', 'google/gemini-2.5-flash-image-preview', 'gemini-2.0-flash-exp-image-generation', 'google/gemini-3-pro-image-preview', 'openai/gpt-5-image', 'openai/gpt-5-image-mini']) {
      expect(isImageChatModel(id), id).toBe(true);
    }
    for (const id of ['google/gemini-2.5-flash', 'gemini-2.5-pro', 'openai/gpt-5', 'openai/gpt-image-1', 'images/gemini-pro', 'my-gemini-2.5-flash-image']) {
      expect(isImageChatModel(id), id).toBe(false);
    }
  });
});
