/**
 * The composer's image and video controls (spec 000 sections 3 and 5): the chosen model's settings, kept per model
 * id as engine data (nImages, resolution or aspect ratio: choosing one clears the other, as a size wins at the
 * gateway; width and height, seed, guidance scale, negative prompt; duration for video), each shown only when the
 * model declares it (ModelInfo.imageSettings), and the input images of image-to-image (or the image of image-to-video): "Add image" (the chosen images
 * show above the message box in every mode: ./InputImages.tsx). Models taking one image replace it; gpt-image-1 takes 4, gpt-4o-image 5.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { ModelSettings } from '../../events/model';
import type { ModelInfo } from '../../protocol/api';
import { IMAGE_SETTING_NAMES, NEGATIVE_PROMPT_MAX_CHARS, type ImageSettingName } from '../../protocol/media-limits';
import type { ActionResult } from '../../protocol/engine';
import { freeFluxLeft, freeImageQuota, maxInputImages, UPSCALE_FACTORS, utcDate, type FreeImageQuota, type UpscaleFactor } from '../../protocol/image-rules';
import { engine, useQuery } from '../engine';
import { showLocalNotice } from '../state';
import { media, addAsInput } from './media-state';

const ASPECTS = ['1:1', '16:9', '9:16', '4:3', '3:4'];

function NumberSetting({ label, value, min, max, step = 1, placeholder, onChange }: { label: string; value: number | undefined; min: number; max: number; step?: number; placeholder: string; onChange(v: number | undefined): void }) {
  const id = useId();
  return (
    <span className="media-setting">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        min={min}
        max={max}
        step={step}
        value={value ?? ''}
        placeholder={placeholder}
        onChange={(e) => {
          const n = e.target.value === '' ? undefined : Number(e.target.value);
          if (n === undefined || (Number.isFinite(n) && n >= min && n <= max)) onChange(n);
        }}
      />
    </span>
  );
}

/** A choice among a few values (and the value kept, if it is not one of them: a starter suggestion's size), or the model's default. */
function ChoiceSetting({ label, value, choices, onChange }: { label: string; value: string | undefined; choices: readonly string[]; onChange(v: string | undefined): void }) {
  const id = useId();
  return (
    <span className="media-setting">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}>
        <option value="">Model default</option>
        {[...new Set([...choices, ...(value ? [value] : [])])].map((a) => (
          <option key={a} value={a}>
            {a}
          </option>
        ))}
      </select>
    </span>
  );
}

/** The negative prompt: kept when the field is left (one settings event, not one per key). */
function NegativePrompt({ value, onChange }: { value: string | undefined; onChange(v: string | undefined): void }) {
  const id = useId();
  const [text, setText] = useState(value ?? '');
  useEffect(() => setText(value ?? ''), [value]);
  const save = () => {
    const next = text.trim() === '' ? undefined : text;
    if (next !== value) onChange(next);
  };
  return (
    <span className="media-setting media-negative">
      <label htmlFor={id}>Negative prompt</label>
      <input id={id} type="text" maxLength={NEGATIVE_PROMPT_MAX_CHARS} placeholder="what to leave out" value={text} onChange={(e) => setText(e.target.value)} onBlur={save} onKeyDown={(e) => e.key === 'Enter' && save()} />
    </span>
  );
}

/** Spec 000 section 6: flux-schnell's (or Hidream's) free uses left today, from the session's 'count:date' metadata. */
function FreeImagesLeft({ quota }: { quota: FreeImageQuota }) {
  const session = useQuery({ kind: 'session' });
  const value = session?.session?.metadata[quota.metadataKey];
  const left = freeFluxLeft(value, utcDate(Date.now()), quota.perDay);
  return (
    <span className="media-free" role="status">
      {left === 0 ? 'No free images left today' : `${left} free image${left === 1 ? '' : 's'} left today`}
    </span>
  );
}

export function MediaControls({ mode, model }: { mode: 'image' | 'video'; model: ModelInfo | undefined }) {
  const all = useQuery({ kind: 'modelSettings' });
  const file = useRef<HTMLInputElement>(null);
  if (!model) return null;
  const settings: ModelSettings = all?.[model.id] ?? {};
  const set = (changes: ModelSettings) => void engine<ActionResult>((api) => api.setModelSettings(model.id, changes));
  const takesImages = mode === 'video' || model.capabilities.includes('image-to-image');
  const limit = mode === 'video' ? 1 : maxInputImages(model.id);
  const chosen = model;
  // An image model shows the settings it declares (a model listed without them: all of them); a video the video ones.
  const declared: readonly ImageSettingName[] = mode === 'image' ? (model.imageSettings ?? IMAGE_SETTING_NAMES) : ['aspect_ratio', 'seed'];
  const takes = (name: ImageSettingName) => declared.includes(name);
  const freeQuota = freeImageQuota(model.id.split('/').pop() ?? model.id);
  async function addFiles(files: FileList | null) {
    for (const f of Array.from(files ?? [])) {
      const r = await engine<{ ok: true; fileId: number } | { ok: false; error: string }>((api) => api.storeInputImage(f));
      if (!r.ok) {
        showLocalNotice({ title: r.error, text: 'Supported image formats: JPG, PNG, WEBP, GIF.', tone: 'orange', durationMs: 5000 });
        continue;
      }
      if (mode === 'video') media.inputImageIds = [r.fileId];
      else if (!addAsInput(chosen.id, r.fileId)) showLocalNotice({ title: `${chosen.name} takes at most ${limit} input images`, text: '', tone: 'orange', durationMs: 5000 });
    }
    if (file.current) file.current.value = '';
  }
  return (
    <div className="media-controls" role="group" aria-label={mode === 'image' ? 'Image settings' : 'Video settings'}>
      {mode === 'image' && takes('nImages') && !model.capabilities.includes('quadrants') && <NumberSetting label="Images" placeholder="1" value={settings.nImages} min={1} max={4} onChange={(v) => set({ nImages: v })} />}
      {mode === 'video' && <NumberSetting label="Duration (s)" placeholder="default" value={settings.duration} min={1} max={60} onChange={(v) => set({ duration: v })} />}
      {takes('resolution') && <ChoiceSetting label="Resolution" value={settings.resolution} choices={model.resolutions ?? []} onChange={(v) => set(v !== undefined && takes('aspect_ratio') ? { resolution: v, aspect_ratio: undefined } : { resolution: v })} />}
      {takes('width') && <NumberSetting label="Width" placeholder="auto" value={settings.width} min={64} max={2048} step={8} onChange={(v) => set({ width: v })} />}
      {takes('height') && <NumberSetting label="Height" placeholder="auto" value={settings.height} min={64} max={2048} step={8} onChange={(v) => set({ height: v })} />}
      {takes('aspect_ratio') && <ChoiceSetting label="Aspect ratio" value={settings.aspect_ratio} choices={ASPECTS} onChange={(v) => set(v !== undefined && takes('resolution') ? { aspect_ratio: v, resolution: undefined } : { aspect_ratio: v })} />}
      {takes('seed') && <NumberSetting label="Seed" placeholder="any" value={settings.seed} min={0} max={4_294_967_295} onChange={(v) => set({ seed: v })} />}
      {takes('guidance_scale') && <NumberSetting label="Guidance" placeholder="default" value={settings.guidance_scale} min={0} max={30} step={0.5} onChange={(v) => set({ guidance_scale: v })} />}
      {takes('upscale_factor') && (
        <ChoiceSetting label="Upscale factor" value={settings.upscale_factor === undefined ? undefined : String(settings.upscale_factor)} choices={UPSCALE_FACTORS.map(String)} onChange={(v) => set({ upscale_factor: v === undefined ? undefined : (Number(v) as UpscaleFactor) })} />
      )}
      {takes('negative_prompt') && <NegativePrompt value={settings.negative_prompt} onChange={(v) => set({ negative_prompt: v })} />}
      {mode === 'image' && freeQuota !== null && !model.free && <FreeImagesLeft quota={freeQuota} />}
      {takesImages && (
        <span className="media-inputs">
          <button type="button" onClick={() => file.current?.click()}>
            Add image
          </button>
          <input ref={file} type="file" accept="image/png,image/jpeg,image/webp,image/gif" multiple={limit > 1} hidden onChange={(e) => void addFiles(e.target.files)} />
        </span>
      )}
    </div>
  );
}
