// The deck list's due counts without recounting every card on every visit: per deck, the counts
// are kept with the deck and review log they came from (the store hands out the same objects
// while their stored text is unchanged) and the time until which they hold, the earliest moment a
// reviewed item falls due or the next local midnight (when today's new-card allowance renews).
// A count taken from the cache is the count dueCount and reviewDueCount give at that moment.
import type { Deck } from '../deck';
import { addDays } from './days';
import { deckKeys, dueCount, reviewDueCount } from './due';
import type { ReviewRecord } from './reviewLog';
import { dueAt } from './schedule';

export interface DueCounts {
  /** "N due". */
  due: number;
  /** "Review due (N)". */
  reviewDue: number;
}

/** The first moment after `now` at which either count can change. */
export function countsHoldUntil(keys: readonly string[], reviews: ReviewRecord, now: number): number {
  let until = addDays(now, 1);
  for (const key of keys) {
    const state = reviews.items[key];
    if (state) {
      const at = dueAt(state);
      if (at > now && at < until) until = at;
    }
  }
  return until;
}

type CountedDeck = Pick<Deck, 'cards' | 'bidirectional'>;

export function createDueCache() {
  const keysOf = new WeakMap<CountedDeck, string[]>();
  const counted = new WeakMap<CountedDeck, { reviews: ReviewRecord; counts: DueCounts; until: number }>();
  return function countsFor(deck: CountedDeck, reviews: ReviewRecord, now: number): DueCounts {
    const kept = counted.get(deck);
    if (kept && kept.reviews === reviews && now < kept.until) return kept.counts;
    let keys = keysOf.get(deck);
    if (!keys) {
      keys = deckKeys(deck);
      keysOf.set(deck, keys);
    }
    const counts = { due: dueCount(keys, reviews, now), reviewDue: reviewDueCount(keys, reviews, now) };
    counted.set(deck, { reviews, counts, until: countsHoldUntil(keys, reviews, now) });
    return counts;
  };
}
