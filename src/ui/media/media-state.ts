/**
 * Ephemeral media view state (valtio, DESIGN rule 7): the input images chosen for image-to-image, and the image
 * viewer's list and position. Nothing here must survive a reload.
 */
import { proxy } from 'valtio';
import type { ModelSettings } from '../../events/model';
import { addInputImage } from '../../protocol/image-rules';
import { mediaModelOf } from '../../protocol/media-limits';
import { composer } from '../composer-state';

export interface ViewerImage {
  fileId: number;
  mimeType: string;
  width: number;
  height: number;
  prompt: string;
  /** Where it was made (the gallery's "Go to message"). */
  slug?: string;
  messageId?: number;
  favourite?: boolean;
}

export const media = proxy({
  /** Files used as input images by the next image (or video) request. */
  inputImageIds: [] as number[],
  viewer: null as { images: ViewerImage[]; index: number } | null,
  /** The chosen image and video models ('' = the catalogue's default for the mode). */
  imageModel: '',
  videoModel: '',
});

/** Chooses an image or video model (a recommendation's "Use ..." button, the model picker of the mode). */
export function chooseMediaModel(mode: 'image' | 'video', modelId: string): void {
  if (mode === 'image') media.imageModel = modelId;
  else media.videoModel = modelId;
  composer.mode = mode;
  composer.extraModels = [];
}

/** Restores the image or video model a conversation last used, leaving the mode to the Composer (its on-load rules). */
export function restoreMediaModel(mode: 'image' | 'video', modelId: string): void {
  if (mode === 'image') media.imageModel = modelId;
  else media.videoModel = modelId;
}

/** Adds an input image by the model's rule (spec 000 section 5): some models keep several, others replace the one. */
export function addAsInput(modelId: string, fileId: number): boolean {
  const { images, added } = addInputImage(modelId, media.inputImageIds, fileId);
  media.inputImageIds = images;
  return added;
}

export function openViewer(images: ViewerImage[], index: number): void {
  media.viewer = { images, index };
}

/** Previous / next with wrap-around (spec 001 section 5: navigation wraps around; the index stays in range). */
export function stepIndex(index: number, count: number, delta: -1 | 1): number {
  if (count <= 0) return 0;
  return (((index + delta) % count) + count) % count;
}

/** The model an image or video request goes to: the one chosen, else the default, else the first of its modality. */
export function mediaModelFor(mode: 'image' | 'video', models: readonly { id: string; modality: string }[]): string {
  return mediaModelOf(mode, models, mode === 'image' ? media.imageModel : media.videoModel);
}

/**
 * A starter suggestion picked in Image or Video mode (spec 000 section 9): its model becomes the mode's model when
 * the catalogue has it, and its resolution ('WxH') the chosen model's size: its Resolution setting when it takes one,
 * else its Width and Height (an aspect ratio set before is cleared: a size wins over it). Returns the settings to
 * write, for the caller to save; null when the suggestion has no size or the model takes none.
 */
export function suggestionChoice(
  mode: 'image' | 'video',
  suggestion: { model?: string; resolution?: string },
  models: readonly { id: string; modality: string; imageSettings?: readonly string[] }[],
): { modelId: string; settings: ModelSettings | null } {
  const listed = suggestion.model !== undefined && models.some((m) => m.id === suggestion.model && m.modality === mode);
  if (listed && suggestion.model) chooseMediaModel(mode, suggestion.model);
  const modelId = mediaModelFor(mode, models);
  const size = /^(\d{2,4})x(\d{2,4})$/.exec(suggestion.resolution ?? '');
  if (!size || !suggestion.resolution) return { modelId, settings: null };
  const declared = models.find((m) => m.id === modelId)?.imageSettings;
  const takes = (name: string) => declared === undefined || declared.includes(name);
  const clearAspect: ModelSettings = takes('aspect_ratio') ? { aspect_ratio: undefined } : {};
  if (takes('resolution')) return { modelId, settings: { resolution: suggestion.resolution, ...clearAspect } };
  if (takes('width') && takes('height')) return { modelId, settings: { width: Number(size[1]), height: Number(size[2]), ...clearAspect } };
  return { modelId, settings: null };
}
