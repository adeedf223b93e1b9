/**
 * The offline Upscaler (spec 001 sections 6 and 9: factors 2, 3 and 4): a Lanczos-3 resampler run in a parse pool
 * thread; an empty prompt is filled with 'Upscale' (spec 000 section 5), a missing image or factor is refused.
 */
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import type { GenerateImageResponse } from '../../../src/protocol/media';
import { UPSCALE_FACTORS } from '../../../src/protocol/image-rules';
import { lanczosUpscale, upscaleImage, upscaleSize, UpscaleError } from '../../../src/server/parse/readers/upscale';
import { mediaGateway } from './media-helpers';
import { startFakeMedia } from './fake-media';

/** A w×h PNG whose left half is opaque red and right half is transparent. */
function halfPng(w: number, h: number): Buffer {
  const p = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const left = x < w / 2;
      p.data[i] = left ? 220 : 0;
      p.data[i + 1] = left ? 30 : 255;
      p.data[i + 2] = 30;
      p.data[i + 3] = left ? 255 : 0;
    }
  return PNG.sync.write(p);
}

describe('the Lanczos resampler', () => {
  it('scales by 2, 3 and 4, keeps a flat colour flat and keeps transparency without colour bleeding', () => {
    expect(UPSCALE_FACTORS).toEqual([2, 3, 4]);
    for (const f of UPSCALE_FACTORS) {
      const out = PNG.sync.read(Buffer.from(upscaleImage(new Uint8Array(halfPng(8, 6)), f)));
      expect([out.width, out.height]).toEqual([8 * f, 6 * f]);
      // Far from the edge: the left is the same red, the right fully transparent.
      const at = (x: number, y: number) => Array.from(out.data.subarray((y * out.width + x) * 4, (y * out.width + x) * 4 + 4));
      expect(at(0, 0)).toEqual([220, 30, 30, 255]);
      expect(at(out.width - 1, out.height - 1)[3]).toBe(0);
      // At the edge the colour of visible pixels stays red (premultiplied filtering: no green from invisible pixels).
      const edge = at(4 * f, 3 * f);
      if (edge[3]! > 0) expect(edge[1]).toBeLessThan(60);
    }
    const flat = new Uint8Array(5 * 5 * 4).fill(90);
    expect(new Set(lanczosUpscale(flat, 5, 5, 3))).toEqual(new Set([90]));
  });

  it('is a Lanczos filter, not a stretch: a hard edge gets the ringing overshoot a box or bilinear filter never makes', () => {
    // One row: black then white. Nearest and bilinear stay within 0..255 and monotone; Lanczos dips below the dark
    // side next to the edge (clamped to 0) and overshoots the light side (clamped to 255) while easing between.
    const w = 8;
    const rgba = new Uint8Array(w * 4);
    for (let x = 0; x < w; x++) rgba.set(x < 4 ? [60, 60, 60, 255] : [200, 200, 200, 255], x * 4);
    const out = lanczosUpscale(rgba, w, 1, 4);
    const row = Array.from({ length: w * 4 }, (_, x) => out[x * 4] as number);
    expect(Math.min(...row)).toBeLessThan(60);
    expect(Math.max(...row)).toBeGreaterThan(200);
    expect(row.filter((v) => v > 60 && v < 200).length).toBeGreaterThan(0);
  });

  it('refuses other factors, images past 4096×4096 out, and what is not a PNG or JPEG', () => {
    expect(upscaleSize(10, 10, 5)).toEqual({ ok: false, message: 'The upscale factor must be 2, 3, 4' });
    expect(upscaleSize(1024, 1024, 4)).toMatchObject({ ok: true, width: 4096, height: 4096 });
    expect(upscaleSize(2048, 1024, 4)).toEqual({ ok: false, message: 'The upscaled image would have more than 4096×4096 pixels (2048×1024 × 4): choose a smaller factor or a smaller image' });
    expect(() => upscaleImage(new TextEncoder().encode('GIF89a not this'), 2)).toThrow(UpscaleError);
    const jpg = jpeg.encode({ data: Buffer.alloc(4 * 4 * 4, 128), width: 4, height: 4 }, 90).data;
    const fromJpeg = PNG.sync.read(Buffer.from(upscaleImage(new Uint8Array(jpg), 3)));
    expect([fromJpeg.width, fromJpeg.height]).toEqual([12, 12]);
  });
});

describe('POST /api/generate-image, Parley Offline Upscaler', () => {
  it('is listed with the factor setting; an empty prompt upscales the image (filled with Upscale); no image is refused', { timeout: 300_000 }, async () => {
    const g = await mediaGateway({});
    try {
      const models = (await (await g.get('/api/models')).json()) as { models: { id: string; name: string; capabilities: string[]; imageSettings?: string[]; offline: boolean }[] };
      expect(models.models.find((m) => m.id === 'parley-offline-upscaler')).toMatchObject({ offline: true, imageSettings: ['upscale_factor'], capabilities: ['image-to-image', 'upscale'] });
      const input = `data:image/png;base64,${halfPng(20, 10).toString('base64')}`;
      for (const factor of [undefined, 4] as const) {
        const res = await g.post('/api/generate-image', { prompt: '', model: 'parley-offline-upscaler', conversationUUID: 'c', imageDataUrl: input, ...(factor ? { upscale_factor: factor } : {}) });
        expect(res.status).toBe(200);
        const body = (await res.json()) as GenerateImageResponse;
        expect(body.data).toHaveLength(1);
        expect(body.cost).toBe(0);
        const out = Buffer.from(body.data?.[0]?.b64_json ?? '', 'base64');
        expect([out.readUInt32BE(16), out.readUInt32BE(20)]).toEqual([20 * (factor ?? 2), 10 * (factor ?? 2)]);
      }
      const none = await g.post('/api/generate-image', { prompt: '', model: 'parley-offline-upscaler', conversationUUID: 'c' });
      expect(none.status).toBe(400);
      expect(await none.json()).toMatchObject({ error: 'IMAGE_REQUIRED', message: 'Parley Offline Upscaler (built-in, no AI) needs an image: add one with "Add image"' });
      const five = await g.post('/api/generate-image', { prompt: '', model: 'parley-offline-upscaler', conversationUUID: 'c', imageDataUrl: input, upscale_factor: 5 });
      expect(five.status).toBe(400);
      // Another model still refuses an empty prompt.
      const other = await g.post('/api/generate-image', { prompt: ' ', model: 'parley-offline-image', conversationUUID: 'c' });
      expect(await other.json()).toMatchObject({ message: 'Message is required' });
    } finally {
      await g.close();
    }
  });
});

describe('an upscaling model of a configured image provider', () => {
  it('is image-to-image only with the factor setting, and gets the factor as scale with an empty prompt filled', { timeout: 300_000 }, async () => {
    const fake = await startFakeMedia();
    const g = await mediaGateway({ PARLEY_IMAGE_PROVIDERS: JSON.stringify([{ name: 'fakeai', url: `${fake.url}/v1`, models: ['real-esrgan-upscaler'] }]) });
    try {
      const models = (await (await g.get('/api/models')).json()) as { models: { id: string; capabilities: string[]; imageSettings?: string[] }[] };
      expect(models.models.find((m) => m.id === 'real-esrgan-upscaler')).toMatchObject({ capabilities: ['image-to-image', 'upscale'], imageSettings: ['upscale_factor'] });
      fake.image = 'ok';
      const res = await g.post('/api/generate-image', { prompt: '', model: 'real-esrgan-upscaler', conversationUUID: 'c', imageDataUrl: `data:image/png;base64,${halfPng(8, 8).toString('base64')}`, upscale_factor: 4 });
      expect(res.status).toBe(200);
      const sent = fake.requests.at(-1);
      expect(sent?.path).toBe('/v1/images/edits');
      expect(sent?.body).toMatch(/name="prompt"\r\n\r\nUpscale\r\n/);
      expect(sent?.body).toMatch(/name="scale"\r\n\r\n4\r\n/);
    } finally {
      await g.close();
      await fake.close();
    }
  });
});
