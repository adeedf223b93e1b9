/**
 * What a message shows of media: its images as thumbnails (opened full size in the viewer, downloaded, used as the
 * input of an image-to-image request), the four quadrants of a Midjourney-style grid as four selectable images,
 * a video job's state and its video, and the answers without images (a recommended model, explicit mode needed).
 */
import { memo, useState } from 'react';
import type { ImageRef } from '../../events/model';
import type { MessageView } from '../../protocol/engine';
import { engine } from '../engine';
import { showLocalNotice } from '../state';
import { downloadFile, imageFileName, useFileUrl } from './files';
import { chooseMediaModel, openViewer, addAsInput } from './media-state';

/** Ours: the state line of a video job. */
export const VIDEO_STATE_TEXT: Record<string, string> = {
  pending: 'Video requested: waiting for the provider…',
  processing: 'Generating video… this can take a few minutes.',
  cancelled: 'The video generation was cancelled.',
};

/** The "Use as input" button's text, which is also its accessible name: one image, or which of several. */
export function asInputLabel(index: number, count: number): string {
  return count === 1 ? 'Use as input' : `Use image ${index + 1} as input`;
}

function Thumb({ image, label, onOpen }: { image: ImageRef; label: string; onOpen(): void }) {
  const url = useFileUrl(image.thumbId);
  const ratio = image.width > 0 && image.height > 0 ? `${image.width} / ${image.height}` : '1 / 1';
  return (
    <button type="button" className="thumb" aria-label={label} onClick={onOpen} style={{ aspectRatio: ratio }}>
      {url ? <img src={url} alt="" /> : <span className="thumb-missing">{url === null ? 'Image not stored' : ''}</span>}
    </button>
  );
}

function VideoPlayer({ message }: { message: MessageView }) {
  // The local copy when it is stored; the gateway's URL (same origin) otherwise.
  const local = useFileUrl(message.videoFileId, message.videoFileId !== undefined);
  const src = local ?? message.videoUrl;
  if (!src) return null;
  return (
    <div className="message-video">
      <video src={src} controls playsInline loop aria-label={`Generated video: ${message.model}`} />
      {message.videoFileId !== undefined && (
        <button type="button" onClick={() => void downloadFile(message.videoFileId as number, 'video.mp4')}>
          Download video
        </button>
      )}
    </div>
  );
}

function ExplicitNote() {
  const [done, setDone] = useState(false);
  return (
    <div className="media-note">
      <button
        type="button"
        disabled={done}
        onClick={() => void engine((api) => api.setPreferences({ showExplicitContent: true })).then(() => setDone(true))}
      >
        {done ? 'Explicit content is shown' : 'Show explicit content (18+)'}
      </button>
    </div>
  );
}

export const MessageMedia = memo(function MessageMedia({ message, prompt }: { message: MessageView; prompt: string }) {
  const images = message.images ?? [];
  const open = (index: number) => openViewer(images.map((i) => ({ ...i, prompt, slug: message.conversationSlug, messageId: message.id })), index);
  const isUser = message.role === 'user';
  return (
    <>
      {images.length > 0 && (
        <div className={message.splitImages ? 'message-images split' : 'message-images'} role="group" aria-label={message.splitImages ? 'Choose an image' : isUser ? 'Input images' : 'Generated images'}>
          {images.map((img, i) => (
            <figure key={img.fileId} className="message-image">
              <Thumb image={img} label={message.splitImages ? `Open variation ${i + 1}` : `Open image ${i + 1}`} onOpen={() => open(i)} />
              {!isUser && (
                <figcaption className="image-tools">
                  <button type="button" onClick={() => void downloadFile(img.fileId, imageFileName(prompt, img.mimeType, i))} aria-label={`Download image ${i + 1}`}>
                    Download
                  </button>
                  <button
                    type="button"
                    // Its accessible name is its visible text (issue 16); with several images the text says which.
                    onClick={() => {
                      addAsInput(message.model, img.fileId);
                      showLocalNotice({ title: 'Image added as input', text: 'It shows above the message box, with the requests that use it.', tone: 'green', durationMs: 5000 });
                    }}
                  >
                    {asInputLabel(i, images.length)}
                  </button>
                </figcaption>
              )}
            </figure>
          ))}
        </div>
      )}
      {message.videoGenerationId !== undefined && message.videoStatus !== 'completed' && message.videoStatus !== 'error' && (
        <p className="media-status" role="status" data-video-status={message.videoStatus}>
          <span className="spinner" aria-hidden="true" /> {VIDEO_STATE_TEXT[message.videoStatus ?? 'pending']}
        </p>
      )}
      {message.videoStatus === 'completed' && <VideoPlayer message={message} />}
      {message.recommendedImageModel && (
        <div className="media-note">
          <button type="button" onClick={() => chooseMediaModel('image', message.recommendedImageModel as string)}>
            Use {message.recommendedImageModelFriendlyName ?? message.recommendedImageModel}
          </button>
        </div>
      )}
      {message.requiresExplicitMode && <ExplicitNote />}
    </>
  );
});
