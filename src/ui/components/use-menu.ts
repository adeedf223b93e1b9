/**
 * One small menu's open state (issue 16): the header's "More actions" and the composer's "More tools". A click
 * outside the button and its panel closes it, once the click has done its work (a notice moved up above the open
 * panel stays put until its button is clicked); Escape closes it too and puts the focus back on the button. A
 * modal dialog opened from the menu (Instructions, Export, Share) is not "outside": the menu stays behind it, and
 * Escape closes the dialog first.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';

export interface Menu {
  open: boolean;
  setOpen(open: boolean): void;
  toggle(): void;
  /** The menu's button. */
  button: RefObject<HTMLButtonElement | null>;
  /** The menu's panel. */
  panel: RefObject<HTMLDivElement | null>;
}

const modalOpen = () => document.querySelector('dialog[open]') !== null;

export function useMenu(): Menu {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => {
      const target = e.target;
      if (!(target instanceof Node)) return;
      if (panel.current?.contains(target) || button.current?.contains(target)) return;
      if (target instanceof Element && target.closest('dialog[open]')) return;
      setOpen(false);
    };
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || modalOpen()) return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('click', outside);
    document.addEventListener('keydown', key);
    return () => {
      document.removeEventListener('click', outside);
      document.removeEventListener('keydown', key);
    };
  }, [open]);
  const toggle = useCallback(() => setOpen((o) => !o), []);
  return { open, setOpen, toggle, button, panel };
}
