/**
 * The queue's hand-over to an open composer (spec 000 section 4: when the pending flag clears, "the next queued
 * message is put in the input and submitted"). A tab showing a conversation watches its `queueTurn` query; when the
 * conversation's replies end and a message waits, the engine offers it to the watching tabs, and the first tab to
 * take it puts its text in the message input and sends it from there (`sendQueuedMessage`), so the user sees it go
 * and can stop its reply like any other. With no tab watching, or when no tab takes the offer within
 * QUEUE_OFFER_MS (the tab was closed, hidden, or its engine connection dropped), the engine sends it itself, as
 * before: the queue is engine data and a queued message is never lost nor sent twice.
 */
import { BehaviorSubject, Observable, distinctUntilChanged, map } from 'rxjs';
import type { QueueTurn } from '../../../protocol/engine';
import type { EngineCore, Room, RoomKind } from '../../core';

/** How long an offered message waits for a tab to take it before the engine sends it itself. */
export const QUEUE_OFFER_MS = 5_000;

type Offer = { turn: QueueTurn; timer: ReturnType<typeof setTimeout> };

export class QueueOffers implements Room {
  /** Per conversation: how many queueTurn subscriptions (tabs showing it) are open. */
  private readonly watchers = new Map<string, number>();
  private readonly offers = new Map<string, Offer>();
  private readonly turns$ = new BehaviorSubject<ReadonlyMap<string, QueueTurn>>(new Map());
  private disposed = false;

  constructor(private readonly waitMs: number) {}

  watched(slug: string): boolean {
    return (this.watchers.get(slug) ?? 0) > 0;
  }

  /** The offer for one conversation, while a tab watches it (the subscription is what counts as watching). */
  watch(slug: string): Observable<QueueTurn | null> {
    return new Observable<QueueTurn | null>((subscriber) => {
      this.watchers.set(slug, (this.watchers.get(slug) ?? 0) + 1);
      const inner = this.turns$
        .pipe(
          map((turns) => turns.get(slug) ?? null),
          distinctUntilChanged(),
        )
        .subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        const left = (this.watchers.get(slug) ?? 1) - 1;
        if (left > 0) this.watchers.set(slug, left);
        else this.watchers.delete(slug);
      };
    });
  }

  /** Offers a queued message to the watching tabs; `fallback` runs when none took it in time. */
  offer(slug: string, turn: QueueTurn, fallback: () => void): void {
    if (this.disposed) return;
    this.clear(slug);
    const timer = setTimeout(() => {
      if (this.offers.get(slug)?.turn.id !== turn.id) return;
      this.clear(slug);
      fallback();
    }, this.waitMs);
    this.offers.set(slug, { turn, timer });
    this.publish();
  }

  offered(slug: string): QueueTurn | null {
    return this.offers.get(slug)?.turn ?? null;
  }

  /** A tab takes the offer: true for the first taker of this id only. */
  take(slug: string, id: string): boolean {
    if (this.offers.get(slug)?.turn.id !== id) return false;
    this.clear(slug);
    return true;
  }

  private clear(slug: string): void {
    const offer = this.offers.get(slug);
    if (!offer) return;
    clearTimeout(offer.timer);
    this.offers.delete(slug);
    this.publish();
  }

  private publish(): void {
    this.turns$.next(new Map([...this.offers].map(([slug, o]) => [slug, o.turn])));
  }

  dispose(): void {
    this.disposed = true;
    for (const offer of this.offers.values()) clearTimeout(offer.timer);
    this.offers.clear();
    this.turns$.complete();
  }
}

export const QUEUE_OFFERS: RoomKind<QueueOffers> = { name: 'queue-offers', create: (core) => new QueueOffers(core.hooksValue('queueOfferMs') ?? QUEUE_OFFER_MS) };

export function queueOffers(core: EngineCore): QueueOffers {
  return core.room(QUEUE_OFFERS);
}
