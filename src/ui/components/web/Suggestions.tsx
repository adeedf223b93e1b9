/**
 * Starter suggestions on an empty conversation (spec 000 sections 1 and 9): random prompts from the gateway for
 * the composer's mode (text in Chat, image in Image, video in Video; none in the other modes), SUGGESTION_COUNTS
 * used of those fetched. Choosing one puts its prompt in the message input (an image one also its model and size:
 * ConversationPage, media-state's suggestionChoice). With no balance the 3rd card, with a low one the 10th, is
 * the one "Add balance" card that leads to the Wallet (docs/decisions.md). The cards are one row that scrolls
 * sideways, with "Previous suggestions" / "Next suggestions" arrows (disabled at either end; issue 16).
 */
import { useCallback, useEffect, useRef, useState, type CSSProperties } from 'react';
import { ChevronLeft, ChevronRight } from '../first-page-icons';
import { IconButton } from '../IconButton';
import type { Mode } from '../../../events/model';
import { SUGGESTION_COUNTS, type SuggestionKind } from '../../../protocol/web-limits';
import type { Suggestion } from '../../../protocol/web';
import { balanceLevel, withBalanceCards } from './suggestion-cards';
import { engine, useQuery } from '../../engine';
import { Link } from '../Link';

const KIND: Partial<Record<Mode, SuggestionKind>> = { chat: 'text', image: 'image', video: 'video' };
/** The gateway checks gradients too; the view applies only this exact form to a style. */
const GRADIENT = /^linear-gradient\(\d{1,3}deg, #[0-9a-f]{6}, #[0-9a-f]{6}(, #[0-9a-f]{6})?\)$/;
export function Suggestions({ mode, onPick }: { mode: Mode; onPick: (s: Suggestion) => void }) {
  const kind = KIND[mode];
  const [items, setItems] = useState<Suggestion[]>([]);
  const session = useQuery({ kind: 'session' });
  const strip = useRef<HTMLUListElement>(null);
  const [ends, setEnds] = useState({ start: true, end: true });
  const measure = useCallback(() => {
    const el = strip.current;
    if (!el) return;
    setEnds({ start: el.scrollLeft <= 4, end: el.scrollLeft + el.clientWidth >= el.scrollWidth - 4 });
  }, []);
  useEffect(() => {
    const el = strip.current;
    if (!el) return;
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [measure, items]);
  const page = (direction: 1 | -1) => {
    const el = strip.current;
    if (el) el.scrollBy({ left: direction * Math.max(el.clientWidth * 0.8, 200), behavior: 'smooth' });
  };

  useEffect(() => {
    if (!kind) return;
    let live = true;
    void engine((api) => api.suggestions(kind)).then((list) => {
      if (live) setItems(list.slice(0, SUGGESTION_COUNTS[kind].used));
    });
    return () => {
      live = false;
    };
  }, [kind]);

  if (!kind || items.length === 0) return null;
  const s = session?.session;
  const level = s ? balanceLevel(Number.parseFloat(s.usd_balance), Number.parseFloat(s.nano_balance)) : 'ok';
  return (
    <section className="suggestions" aria-label="Suggestions">
      {!(ends.start && ends.end) && (
        <>
          <IconButton className="suggestions-arrow previous" label="Previous suggestions" icon={ChevronLeft} disabled={ends.start} onClick={() => page(-1)} />
          <IconButton className="suggestions-arrow next" label="Next suggestions" icon={ChevronRight} disabled={ends.end} onClick={() => page(1)} />
        </>
      )}
      <ul ref={strip} onScroll={measure} data-more={ends.start ? (ends.end ? undefined : 'end') : ends.end ? 'start' : 'both'}>
        {withBalanceCards(items, level).map((card) =>
          card.kind === 'balance' ? (
            <li key={card.key} className="suggestion balance-card">
              <Link href="/wallet" className="suggestion-button">
                <span className="suggestion-title">Add balance</span>
                <span className="suggestion-prompt">{level === 'none' ? 'Free models only for now: add balance to use every model.' : 'Your balance is low: top up to keep using paid models.'}</span>
              </Link>
            </li>
          ) : (
            <li key={card.suggestion.id} className="suggestion">
              <button
                type="button"
                className="suggestion-button"
                style={GRADIENT.test(card.suggestion.gradient) ? ({ backgroundImage: card.suggestion.gradient } as CSSProperties) : undefined}
                onClick={() => onPick(card.suggestion)}
                title={card.suggestion.prompt}
              >
                <span className="suggestion-title">{card.suggestion.title}</span>
                <span className="suggestion-prompt">{card.suggestion.prompt}</span>
                {card.suggestion.category && <span className="suggestion-meta">{`${card.suggestion.category} · ${card.suggestion.resolution ?? ''}`}</span>}
              </button>
            </li>
          ),
        )}
      </ul>
    </section>
  );
}
