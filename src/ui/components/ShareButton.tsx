/**
 * "Share" in the conversation's header (issue 20): the button; its dialog (./ShareDialog.tsx) is a chunk of its own,
 * loaded when the button is pointed at or pressed.
 */
import { lazy, Suspense, useState } from 'react';
import { preloadOn } from './preload-on';

const loadDialog = () => import('./ShareDialog');
const ShareDialog = lazy(loadDialog);

export function ShareButton({ slug }: { slug: string | null }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        disabled={slug === null}
        {...preloadOn(loadDialog)}
        onClick={() => setOpen(true)}
      >
        Share
      </button>
      {open && slug !== null && (
        <Suspense fallback={null}>
          <ShareDialog slug={slug} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}

