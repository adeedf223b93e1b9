import { describe, expect, it } from 'vitest';
import { applyVideoDefaults, checkVideoRequest, mapVideoStatus, videoFamily, videoTimedOut, VIDEO_MESSAGES, type VideoCheckInput } from '../../../src/protocol/video-rules';

describe('video defaults (spec 000 section 9)', () => {
  it.each([
    ['longstories', {}, { scriptLength: 30, videoConfig: 'kling_v2_1_std_5s' }],
    ['longstories', { scriptLength: 14 }, { scriptLength: 30 }],
    ['longstories', { scriptLength: 15 }, { scriptLength: 30 }],
    ['longstories', { scriptLength: 16 }, { scriptLength: 30 }],
    ['longstories', { scriptLength: 45 }, { scriptLength: 45 }],
    ['fal-ai/kling-video/v1.6/standard', {}, { duration: 5, aspect_ratio: '16:9' }],
    ['seedance', {}, { resolution: '1080p' }],
    ['seedance-lite', {}, { resolution: '480p' }],
    ['veo2', {}, { duration: 5, aspect_ratio: '16:9' }],
    ['hunyuan-image-to-video', {}, { aspect_ratio: '16:9', resolution: '720p', num_frames: 129 }],
    ['wan-i2v', {}, { aspect_ratio: 'auto', resolution: '720p', num_frames: 81, frames_per_second: 16, enable_safety_checker: false }],
    ['minimax/video-01', {}, { prompt_optimizer: true }],
  ] as const)('%s %j', (model, given, expected) => {
    expect(applyVideoDefaults(model, { ...given })).toMatchObject(expected);
  });

  it('keeps what the user chose and leaves the input untouched', () => {
    const given = { duration: 10, aspect_ratio: '9:16' };
    expect(applyVideoDefaults('kling', given)).toEqual({ duration: 10, aspect_ratio: '9:16' });
    expect(applyVideoDefaults('minimax', { prompt_optimizer: false }).prompt_optimizer).toBe(false);
    expect(applyVideoDefaults('parley-offline-video', given)).toEqual(given);
    expect(applyVideoDefaults('seedance', {})).not.toHaveProperty('duration');
  });

  it('knows the families by id', () => {
    expect(videoFamily('fal-ai/kling-video/v2/master/image-to-video')).toBe('kling-video-v2');
    expect(videoFamily('hailuo-02')).toBe('minimax');
    expect(videoFamily('runware:veo3')).toBe('veo3');
    expect(videoFamily('runware:100@1')).toBe('runware');
  });
});

describe('video validation (spec 000 section 5)', () => {
  const base: VideoCheckInput = { modelId: 'x', modelName: 'X', prompt: 'p', imageToVideoOnly: false, hasImage: false, imageReadable: null, imageSize: null };
  it.each([
    ['kling', 2500, 'Kling'],
    ['veo3', 3000, 'Veo3'],
    ['runware:1@1', 3000, 'Runware'],
    ['hailuo', 2000, 'Hailuo'],
  ])('%s prompts above %i characters are refused', (modelId, limit, label) => {
    expect(checkVideoRequest({ ...base, modelId, prompt: 'a'.repeat(limit) }).ok).toBe(true);
    const r = checkVideoRequest({ ...base, modelId, prompt: 'a'.repeat(limit + 1) });
    expect(r).toEqual({ ok: false, title: 'Prompt too long', text: VIDEO_MESSAGES.promptTooLong(label, limit, limit + 1) });
  });

  it('counts characters, not UTF-16 units', () => {
    expect(checkVideoRequest({ ...base, modelId: 'hailuo', prompt: '😀'.repeat(2000) }).ok).toBe(true);
  });

  it('image-to-video-only models need an image', () => {
    expect(checkVideoRequest({ ...base, modelName: 'Kling Pro', imageToVideoOnly: true })).toEqual({
      ok: false,
      title: 'Kling Pro requires an input image. Please select an image to generate a video.',
      text: '',
    });
    expect(checkVideoRequest({ ...base, imageToVideoOnly: true, hasImage: true, imageReadable: true }).ok).toBe(true);
  });

  it("Hunyuan's two messages", () => {
    const h = { ...base, modelId: 'hunyuan-i2v', imageToVideoOnly: true };
    expect(checkVideoRequest(h)).toMatchObject({ ok: false, title: 'No image attachment found. Please add an image by clicking the image icon in the conversation input area before generating video.' });
    expect(checkVideoRequest({ ...h, hasImage: true, imageReadable: false })).toMatchObject({ ok: false, title: 'Could not retrieve image data. Please try uploading the image again.' });
    expect(checkVideoRequest({ ...h, hasImage: true, imageReadable: true }).ok).toBe(true);
  });

  it('kling-video-v2 takes 16:9, 9:16 and 1:1 within 0.01', () => {
    const k = (width: number, height: number) => checkVideoRequest({ ...base, modelId: 'kling-video-v2', hasImage: true, imageReadable: true, imageSize: { width, height } });
    expect(k(1920, 1080).ok).toBe(true);
    expect(k(1080, 1920).ok).toBe(true);
    expect(k(1000, 1000).ok).toBe(true);
    expect(k(1778, 1000).ok).toBe(true); // 1.778 vs 1.7778
    expect(k(1000, 1010).ok).toBe(true); // 0.990
    expect(k(1000, 1020)).toMatchObject({ ok: false, title: 'Unsupported aspect ratio' });
    expect(k(4, 3)).toMatchObject({ ok: false, title: 'Unsupported aspect ratio', text: expect.stringContaining('16:9, 9:16 or 1:1') as unknown });
    expect(checkVideoRequest({ ...base, modelId: 'kling', hasImage: true, imageReadable: true, imageSize: { width: 4, height: 3 } }).ok).toBe(true);
  });
});

describe('video status (spec 000 section 4)', () => {
  it('maps server statuses', () => {
    expect(mapVideoStatus('COMPLETED')).toBe('completed');
    expect(mapVideoStatus('FAILED')).toBe('error');
    expect(mapVideoStatus('ERROR')).toBe('error');
    expect(mapVideoStatus('CANCELLED')).toBe('cancelled');
    for (const s of ['IN_QUEUE', 'IN_PROGRESS', 'completed', '', null, undefined]) expect(mapVideoStatus(s)).toBe('processing');
  });
  it('times out 20 minutes after the message', () => {
    expect(videoTimedOut(0, 20 * 60_000 - 1)).toBe(false);
    expect(videoTimedOut(0, 20 * 60_000)).toBe(true);
  });
});
