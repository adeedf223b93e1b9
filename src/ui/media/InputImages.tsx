/**
 * The input images chosen with "Use as input" or "Add image", shown above the message box in every mode (issue 16):
 * a removable thumbnail each ("Remove input image N") and a line naming the requests that use them, from the
 * catalogue ("Input image: used by Image edit / Video / Upscale"), with a note when the current mode or model does
 * not take them ("Not sent with Chat"): the engine sends them only with those requests (protocol/image-rules.ts).
 * The group's accessible name is its visible line.
 */
import { useId } from 'react';
import { useSnapshot } from 'valtio';
import type { ModelInfo } from '../../protocol/api';
import type { Mode } from '../../events/model';
import { inputImageUse, inputImageUses } from '../../protocol/image-rules';
import { useFileUrl } from './files';
import { media } from './media-state';

const MODE_NAMES: Record<Mode, string> = { chat: 'Chat', image: 'Image', video: 'Video', audio: 'Audio', voice: 'Voice' };

function InputChip({ fileId, index }: { fileId: number; index: number }) {
  // The file is the stored image (a generated one, or one the user added): shown small, decoded by the browser off the main thread.
  const url = useFileUrl(fileId);
  return (
    <span className="input-chip">
      {url && <img src={url} alt="" decoding="async" />}
      <button type="button" className="icon" aria-label={`Remove input image ${index + 1}`} onClick={() => (media.inputImageIds = media.inputImageIds.filter((id) => id !== fileId))}>
        ×
      </button>
    </span>
  );
}

/** The line above the thumbnails: which requests use the images, and whether this one will. */
export function inputImagesText(count: number, models: readonly ModelInfo[], mode: Mode, model: ModelInfo | undefined): { label: string; note: string | null } {
  const uses = inputImageUses(models);
  const head = count === 1 ? 'Input image' : 'Input images';
  const label = uses.length > 0 ? `${head}: used by ${uses.join(' / ')}` : `${head}: no model here takes one`;
  let note: string | null = null;
  if (mode === 'image' || mode === 'video') {
    if (model && inputImageUse(mode, model) === null) note = `Not sent with ${model.name}`;
  } else note = `Not sent with ${MODE_NAMES[mode]}`;
  return { label, note };
}

export function InputImages({ models, mode, model }: { models: readonly ModelInfo[]; mode: Mode; model: ModelInfo | undefined }) {
  const { inputImageIds } = useSnapshot(media);
  const id = useId();
  if (inputImageIds.length === 0) return null;
  const { label, note } = inputImagesText(inputImageIds.length, models, mode, model);
  return (
    <div className="input-images" role="group" aria-labelledby={id}>
      <span className="input-images-chips">
        {inputImageIds.map((fileId, i) => (
          <InputChip key={fileId} fileId={fileId} index={i} />
        ))}
      </span>
      <span className="input-images-text">
        <span id={id}>{label}</span>
        {note && <span className="input-images-note muted">{note}</span>}
      </span>
    </div>
  );
}
