/**
 * An icon button (issue 16, the visual language): a lucide icon with its label as the accessible name and as a
 * tooltip shown on hover and on keyboard focus (CSS, `data-tip`), so nothing hangs on the browser's slow title.
 */
import { forwardRef, type ButtonHTMLAttributes, type ComponentType } from 'react';

export type Icon = ComponentType<{ size?: number; strokeWidth?: number; 'aria-hidden'?: boolean }>;

interface Props extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'> {
  label: string;
  icon: Icon;
}

export const IconButton = forwardRef<HTMLButtonElement, Props>(function IconButton({ label, icon: Glyph, className, ...rest }, ref) {
  return (
    <button ref={ref} type="button" aria-label={label} data-tip={label} className={`icon-button${className ? ` ${className}` : ''}`} {...rest}>
      <Glyph size={16} strokeWidth={2} aria-hidden />
    </button>
  );
});
