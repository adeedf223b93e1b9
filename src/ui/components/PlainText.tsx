/**
 * Text shown as it is (a user's message, a reply that cannot be formatted or is still being parsed). A long text
 * is laid out in pieces, one piece per task: laying out a megabyte of text at once holds the page for about a
 * second, a piece of 16,000 characters for a few milliseconds. Pieces end at a line break where there is one.
 */
import { useEffect, useMemo, useState } from 'react';
import { unformattedNote } from '../../protocol/markdown-note';

export const PLAIN_PIECE_CHARS = 16_000;

/** The text cut into pieces of at most `size` characters, at line breaks (dropped) where it can. Pure. */
export function plainPieces(text: string, size: number = PLAIN_PIECE_CHARS): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    if (text.length - at <= size) {
      out.push(text.slice(at));
      break;
    }
    const limit = at + size;
    const nl = text.lastIndexOf('\n', limit);
    if (nl > at + size / 2) {
      out.push(text.slice(at, nl));
      at = nl + 1;
      continue;
    }
    // No line break near: cut, but never between the two halves of a surrogate pair.
    const code = text.charCodeAt(limit - 1);
    const end = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

export function PlainText({ text, className = 'plain' }: { text: string; className?: string }) {
  const pieces = useMemo(() => plainPieces(text), [text]);
  const [shown, setShown] = useState(1);
  const more = shown < pieces.length;
  useEffect(() => {
    if (!more) return;
    const timer = setTimeout(() => setShown((n) => n + 1), 0);
    return () => clearTimeout(timer);
  }, [more, shown]);
  if (pieces.length === 1) return <div className={className}>{text}</div>;
  return (
    <div className={className}>
      {pieces.slice(0, shown).map((piece, i) => (
        <div key={i}>{piece}</div>
      ))}
    </div>
  );
}

/** The note above a reply shown as plain text because it could not be formatted (too slow to parse, or broken). */
export const UNFORMATTED_NOTE = unformattedNote('assistant');

/** A reply that could not be formatted: the note, then its text as it is. */
export function UnformattedText({ text }: { text: string }) {
  return (
    <div className="unformatted">
      <p className="unformatted-note" role="note">
        {UNFORMATTED_NOTE}
      </p>
      <PlainText text={text} />
    </div>
  );
}
