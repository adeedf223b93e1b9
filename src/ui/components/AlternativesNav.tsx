/**
 * The branch navigator of a message with alternatives (DESIGN UI contract): a group "Alternatives" with
 * "Previous alternative", the text "N / M" and "Next alternative". Switching shows that branch and everything
 * after it; the engine refuses a switch while a reply generates (with the spec's notice).
 */
import { ChevronLeft, ChevronRight } from 'lucide-react';
import { IconButton } from './IconButton';

export function AlternativesNav({ index, count, disabled, onSwitch }: { index: number; count: number; disabled: boolean; onSwitch: (direction: 'previous' | 'next') => void }) {
  return (
    <div role="group" aria-label="Alternatives" className="alternatives">
      <IconButton label="Previous alternative" icon={ChevronLeft} disabled={disabled || index <= 1} onClick={() => onSwitch('previous')} />
      <span className="alternatives-position" aria-live="polite">
        {index} / {count}
      </span>
      <IconButton label="Next alternative" icon={ChevronRight} disabled={disabled || index >= count} onClick={() => onSwitch('next')} />
    </div>
  );
}
