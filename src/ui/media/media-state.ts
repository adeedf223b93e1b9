/**
 * Ephemeral media view state (valtio, DESIGN rule 7): the input images chosen for image-to-image, and the image
 * viewer's list and position. Nothing here must survive a reload.
 */
import { proxy } from 'valtio';
import { addInputImage } from '../../protocol/image-rules';
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

/** Adds an input image by the model's rule (spec 000 section 5): some models keep several, others replace the one. */
export function useAsInput(modelId: string, fileId: number): boolean {
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

/** Spec 000 section 9: default image model flux-schnell, video longstories; else the catalogue's first of the kind. */
export const DEFAULT_MEDIA_MODEL = { image: 'flux-schnell', video: 'longstories' } as const;

/** The model an image or video request goes to: the one chosen, else the default, else the first of its modality. */
export function mediaModelFor(mode: 'image' | 'video', models: readonly { id: string; modality: string }[]): string {
  const chosen = mode === 'image' ? media.imageModel : media.videoModel;
  const ofMode = models.filter((m) => m.modality === mode);
  return (ofMode.find((m) => m.id === chosen) ?? ofMode.find((m) => m.id === DEFAULT_MEDIA_MODEL[mode]) ?? ofMode[0])?.id ?? '';
}
