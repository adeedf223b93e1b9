import { useEffect, useRef } from 'react';

interface Props {
  value: string;
  onChange(text: string): void;
  pending: boolean;
  onSend(): void;
  onStop(): void;
}

/** Spec 001 section 5: input height is clamped between 40 and min(max(200, 75% of the window), 800). */
function maxInputHeight(): number {
  return Math.min(Math.max(200, window.innerHeight * 0.75), 800);
}

export function Composer({ value, onChange, pending, onSend, onStop }: Props) {
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(Math.max(40, el.scrollHeight), maxInputHeight())}px`;
  }, [value]);

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        if (!pending) onSend();
      }}
    >
      <textarea
        ref={ref}
        aria-label="Message"
        placeholder="Message Parley…"
        rows={1}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          // enterSendsMessage defaults to true (spec 001 section 9); Shift+Enter inserts a newline.
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            if (!pending) onSend();
          }
        }}
      />
      {pending ? (
        <button type="button" className="stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" className="send">
          Send
        </button>
      )}
    </form>
  );
}
