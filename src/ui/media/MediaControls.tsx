/**
 * The composer's image and video controls (spec 000 sections 3 and 5): the chosen model's settings, kept per model
 * id as engine data (nImages, aspect ratio, width and height, seed, guidance scale, negative prompt; duration for
 * video), and the input images of image-to-image (or the image of image-to-video): "Add image" and one chip per
 * image with "Remove input image N". Models taking one image replace it; gpt-image-1 takes 4, gpt-4o-image 5.
 */
import { useId, useRef } from 'react';
import { useSnapshot } from 'valtio';
import type { ModelSettings } from '../../events/model';
import type { ModelInfo } from '../../protocol/api';
import type { ActionResult } from '../../protocol/engine';
import { FREE_FLUX_METADATA_KEY, FREE_FLUX_MODEL, freeFluxLeft, maxInputImages, utcDate } from '../../protocol/image-rules';
import { engine, useQuery } from '../engine';
import { showLocalNotice } from '../state';
import { useFileUrl } from './files';
import { media, useAsInput } from './media-state';

const ASPECTS = ['1:1', '16:9', '9:16', '4:3', '3:4'];

function InputChip({ fileId, index }: { fileId: number; index: number }) {
  const url = useFileUrl(fileId);
  return (
    <span className="input-chip">
      {url && <img src={url} alt="" />}
      <button type="button" className="icon" aria-label={`Remove input image ${index + 1}`} onClick={() => (media.inputImageIds = media.inputImageIds.filter((id) => id !== fileId))}>
        ×
      </button>
    </span>
  );
}

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

/** Spec 000 section 6: flux-schnell's free uses left today, from the session's 'count:date' metadata. */
function FreeImagesLeft() {
  const session = useQuery({ kind: 'session' });
  const value = session?.session?.metadata[FREE_FLUX_METADATA_KEY];
  const left = freeFluxLeft(value, utcDate(Date.now()));
  return (
    <span className="media-free" role="status">
      {left === 0 ? 'No free images left today' : `${left} free image${left === 1 ? '' : 's'} left today`}
    </span>
  );
}

export function MediaControls({ mode, model }: { mode: 'image' | 'video'; model: ModelInfo | undefined }) {
  const all = useQuery({ kind: 'modelSettings' });
  const { inputImageIds } = useSnapshot(media);
  const file = useRef<HTMLInputElement>(null);
  const aspectId = useId();
  if (!model) return null;
  const settings: ModelSettings = all?.[model.id] ?? {};
  const set = (changes: ModelSettings) => void engine<ActionResult>((api) => api.setModelSettings(model.id, changes));
  const takesImages = mode === 'video' || model.capabilities.includes('image-to-image');
  const limit = mode === 'video' ? 1 : maxInputImages(model.id);
  const chosen = model;
  async function addFiles(files: FileList | null) {
    for (const f of Array.from(files ?? [])) {
      const r = await engine<{ ok: true; fileId: number } | { ok: false; error: string }>((api) => api.storeInputImage(f));
      if (!r.ok) {
        showLocalNotice({ title: r.error, text: 'Supported image formats: JPG, PNG, WEBP, GIF.', tone: 'orange', durationMs: 5000 });
        continue;
      }
      if (mode === 'video') media.inputImageIds = [r.fileId];
      else if (!useAsInput(chosen.id, r.fileId)) showLocalNotice({ title: `${chosen.name} takes at most ${limit} input images`, text: '', tone: 'orange', durationMs: 5000 });
    }
    if (file.current) file.current.value = '';
  }
  return (
    <div className="media-controls" role="group" aria-label={mode === 'image' ? 'Image settings' : 'Video settings'}>
      {mode === 'image' && !model.capabilities.includes('quadrants') && <NumberSetting label="Images" placeholder="1" value={settings.nImages} min={1} max={4} onChange={(v) => set({ nImages: v })} />}
      {mode === 'video' && <NumberSetting label="Duration (s)" placeholder="default" value={settings.duration} min={1} max={60} onChange={(v) => set({ duration: v })} />}
      <span className="media-setting">
        <label htmlFor={aspectId}>Aspect ratio</label>
        <select id={aspectId} value={settings.aspect_ratio ?? ''} onChange={(e) => set({ aspect_ratio: e.target.value === '' ? undefined : e.target.value })}>
          <option value="">Model default</option>
          {ASPECTS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </span>
      <NumberSetting label="Seed" placeholder="any" value={settings.seed} min={0} max={4_294_967_295} onChange={(v) => set({ seed: v })} />
      {mode === 'image' && <NumberSetting label="Guidance" placeholder="default" value={settings.guidance_scale} min={0} max={30} step={0.5} onChange={(v) => set({ guidance_scale: v })} />}
      {mode === 'image' && model.id === FREE_FLUX_MODEL && !model.free && <FreeImagesLeft />}
      {takesImages && (
        <span className="media-inputs">
          {inputImageIds.map((id, i) => (
            <InputChip key={id} fileId={id} index={i} />
          ))}
          <button type="button" onClick={() => file.current?.click()}>
            Add image
          </button>
          <input ref={file} type="file" accept="image/png,image/jpeg,image/webp,image/gif" multiple={limit > 1} hidden onChange={(e) => void addFiles(e.target.files)} />
        </span>
      )}
    </div>
  );
}
