import { describe, expect, it } from 'vitest';
import { emptyCard, type Card } from '../deck';
import { cardLapses, isLeech, LEECH_LAPSES, troubleCards, withSuspended } from './leeches';
import { emptyReviews, recordMark, type ReviewRecord } from './reviewLog';

const DAY = 86_400_000;
const card = (id: string, front: string, extra: Partial<Card> = {}): Card => ({ ...emptyCard(id), front, back: `${front}!`, ...extra });

/** Reviews `key` until it reaches review, then forgets it `lapses` times, a day or more apart. */
function forget(reviews: ReviewRecord, key: string, lapses: number): ReviewRecord {
  let at = 0;
  let record = reviews;
  for (let i = 0; i < lapses; i += 1) {
    // Good until the item is in review (state 2), then Again: one lapse.
    for (let guard = 0; guard < 10 && record.items[key]?.[7] !== 2; guard += 1) {
      at += DAY;
      record = recordMark(record, key, 'good', at);
    }
    at += 30 * DAY;
    record = recordMark(record, key, 'again', at);
  }
  return record;
}

describe('leeches', () => {
  it('counts a lapse for each Didn’t know after the card reached review, as Anki does', () => {
    const reviews = forget(emptyReviews(), 'a', 3);
    expect(cardLapses(card('a', 'cat'), false, reviews)).toBe(3);
    // Not knowing a new card is no lapse.
    expect(cardLapses(card('b', 'dog'), false, recordMark(emptyReviews(), 'b', 'again', 0))).toBe(0);
  });

  it('marks a card forgotten 8 times, in any of its directions or cloze numbers', () => {
    expect(LEECH_LAPSES).toBe(8);
    expect(isLeech(7)).toBe(false);
    expect(isLeech(8)).toBe(true);
    const reviews = forget(forget(emptyReviews(), 'a:reverse', 8), 'z:c2', 9);
    const deck = { cards: [card('a', 'cat'), card('z', '{{c1::x}} {{c2::y}}'), card('n', 'new')], bidirectional: true };
    expect(troubleCards(deck, reviews).map(({ card, lapses, leech }) => [card.id, lapses, leech])).toEqual([
      ['z', 9, true],
      ['a', 8, true],
    ]);
  });

  it('lists suspended cards too, and a suspended leech still counts its lapses', () => {
    const reviews = forget(emptyReviews(), 'a', 8);
    const deck = { cards: [card('s', 'sleepy', { suspended: true }), card('a', 'cat', { suspended: true })], bidirectional: false };
    expect(troubleCards(deck, reviews).map(({ card, leech }) => [card.id, leech])).toEqual([
      ['a', true],
      ['s', false],
    ]);
  });

  it('suspends and unsuspends one card, leaving the others as they are', () => {
    const deck = { cards: [card('a', 'cat'), card('b', 'dog')] };
    const suspended = withSuspended(deck, 'a', true);
    expect(suspended.cards.map((c) => c.suspended)).toEqual([true, false]);
    expect(suspended.cards[1]).toBe(deck.cards[1]);
    expect(withSuspended(suspended, 'a', false).cards[0]?.suspended).toBe(false);
  });
});
