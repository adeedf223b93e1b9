/**
 * "Model settings" of one text model (spec 000 section 7: the sampling fields a chat request carries): a button
 * beside the model picker and beside each extra model of multi-model mode, opening a dialog with the settings the
 * model takes (ModelInfo.parameters, decided by the gateway per upstream) and Max tokens. Each value is saved when
 * its field is left (modelSettings.changed, kept per model id in the engine, so every tab and every later request
 * has it); an empty field is the model's default; "Reset to defaults" clears them all.
 *
 * The dialog's form is its own chunk (./ModelSettingsForm.tsx), loaded when the button is first pointed at or
 * pressed: the first page carries only the button.
 */
import { lazy, Suspense, useRef, useState } from 'react';
import type { ModelInfo } from '../../protocol/api';
import { preloadOn } from './preload-on';

const loadForm = () => import('./ModelSettingsForm');
const ModelSettingsForm = lazy(loadForm);

export function ModelSettingsButton({ model, className }: { model: ModelInfo | undefined; className?: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  if (!model || model.modality !== 'text') return null;
  return (
    <>
      <button
        type="button"
        className={`icon model-settings-button ${className ?? ''}`}
        aria-label={`Model settings: ${model.name}`}
        title="Model settings"
        {...preloadOn(loadForm)}
        onClick={() => {
          setOpen(true);
          dialog.current?.showModal();
        }}
      >
        <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <path d="M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0" />
          <circle cx="16" cy="6" r="2" />
          <circle cx="10" cy="12" r="2" />
          <circle cx="18" cy="18" r="2" />
        </svg>
      </button>
      <dialog ref={dialog} className="system-prompt-dialog model-settings-dialog" aria-label="Model settings" onClose={() => setOpen(false)}>
        {open && (
          <Suspense fallback={<div className="dialog-loading" aria-busy="true" />}>
            <ModelSettingsForm model={model} onClose={() => dialog.current?.close()} />
          </Suspense>
        )}
      </dialog>
    </>
  );
}

