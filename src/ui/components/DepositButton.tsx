/**
 * The "Deposit" button and its dialog element. The dialog's steps (./DepositDialog.tsx, with the payment methods
 * and their logos) are a lazy chunk loaded when the dialog opens, so the first page does not carry them.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';

const DepositSteps = lazy(() => import('./DepositDialog').then((m) => ({ default: m.DepositSteps })));

export function DepositButton({ openInitially = false, onOpened }: { openInitially?: boolean; onOpened?(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const show = () => {
    setOpen(true);
    if (!dialog.current?.open) dialog.current?.showModal();
  };
  useEffect(() => {
    if (openInitially) {
      show();
      onOpened?.();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- opens once when asked to; a new onOpened each render must not reopen it
  }, [openInitially]);
  return (
    <>
      <button type="button" className="primary" onClick={show}>
        Deposit
      </button>
      <dialog ref={dialog} className="deposit-dialog" aria-label="Deposit" onClose={() => setOpen(false)}>
        {open && (
          <Suspense
            fallback={
              // The dialog's frame while its steps load: the same header, so the title and Close do not jump in.
              <div className="deposit">
                <header className="dialog-header">
                  <h2>Deposit</h2>
                  <button type="button" className="dialog-close" aria-label="Close" onClick={() => dialog.current?.close()}>
                    ×
                  </button>
                </header>
                <p className="muted" role="status">
                  Loading payment methods…
                </p>
              </div>
            }
          >
            <DepositSteps onClose={() => dialog.current?.close()} />
          </Suspense>
        )}
      </dialog>
    </>
  );
}
