/**
 * The branch navigator of a message with alternatives (DESIGN UI contract): a group "Alternatives" with
 * "Previous alternative", the text "N / M" and "Next alternative". Switching shows that branch and everything
 * after it; the engine refuses a switch while a reply generates (with the spec's notice).
 */
export function AlternativesNav({ index, count, disabled, onSwitch }: { index: number; count: number; disabled: boolean; onSwitch: (direction: 'previous' | 'next') => void }) {
  return (
    <div role="group" aria-label="Alternatives" className="alternatives">
      <button type="button" aria-label="Previous alternative" disabled={disabled || index <= 1} onClick={() => onSwitch('previous')}>
        ‹
      </button>
      <span className="alternatives-position" aria-live="polite">
        {index} / {count}
      </span>
      <button type="button" aria-label="Next alternative" disabled={disabled || index >= count} onClick={() => onSwitch('next')}>
        ›
      </button>
    </div>
  );
}
