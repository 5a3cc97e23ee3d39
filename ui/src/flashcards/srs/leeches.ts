// Leeches (Anki's rule): a card forgotten 8 times, that is with 8 lapses (a "Didn’t know" after it
// had reached review), wastes the learner's time and is marked so it can be suspended. A card's
// lapses are the most of any of its practice items (directions, cloze numbers). Pure.
import type { Card, Deck } from '../deck';
import { practiceItems } from '../practice';
import type { ReviewRecord } from './reviewLog';

/** Lapses at which a card becomes a leech (Anki's default threshold). */
export const LEECH_LAPSES = 8;

export const lapsesOf = (state: readonly number[]) => state[6] ?? 0;

/** The most lapses of any practice item of `card` (suspended or not); 0 when never reviewed. */
export function cardLapses(card: Card, bidirectional: boolean, reviews: ReviewRecord): number {
  let most = 0;
  for (const item of practiceItems({ cards: [{ ...card, suspended: false }], bidirectional })) {
    const state = reviews.items[item.key];
    if (state) most = Math.max(most, lapsesOf(state));
  }
  return most;
}

export const isLeech = (lapses: number) => lapses >= LEECH_LAPSES;

export interface CardStanding {
  card: Card;
  lapses: number;
  leech: boolean;
}

/**
 * The cards the progress page lists under "Leeches and suspended cards": every leech and every
 * suspended card, the most forgotten first (deck order among equals).
 */
export function troubleCards(deck: Pick<Deck, 'cards' | 'bidirectional'>, reviews: ReviewRecord): CardStanding[] {
  const listed: CardStanding[] = [];
  for (const card of deck.cards) {
    const lapses = cardLapses(card, deck.bidirectional, reviews);
    if (isLeech(lapses) || card.suspended) listed.push({ card, lapses, leech: isLeech(lapses) });
  }
  return listed.sort((a, b) => b.lapses - a.lapses);
}

/** The deck's cards with `id` suspended or not; the others keep their identity. */
export function withSuspended<T extends Pick<Deck, 'cards'>>(deck: T, id: string, suspended: boolean): T {
  return { ...deck, cards: deck.cards.map((card) => (card.id === id && card.suspended !== suspended ? { ...card, suspended } : card)) };
}
