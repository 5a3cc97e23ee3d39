// A learner's review log, simulated and deterministic (a seeded generator): cards introduced a few
// a day and reviewed when Hearth's default schedule brings them back, remembered with the chance a
// memory unlike FSRS's defaults gives (it forgets faster at first and keeps what it knows longer),
// so fitting the log has something to find. For the optimiser's tests, browser test and bench.
import { forgetting_curve } from 'ts-fsrs';
import type { ReviewEntry } from './reviewLog';
import { DEFAULT_PARAMS, grade, schedulerOf, type ItemState } from './schedule';

/** The simulated learner's own memory: FSRS-6 parameters unlike the defaults. */
export const LEARNER_PARAMS: readonly number[] = DEFAULT_PARAMS.map((part, i) => (i < 4 ? part * 0.3 : i === 8 ? part * 0.75 : part));

const DAY = 86_400_000;

/** A small seeded generator (mulberry32): the same seed gives the same log everywhere. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * About `marks` marks (oldest first, ending before `end`) on cards `card-0`… introduced
 * `perDay` a day: each card's first mark, then one each time its schedule (defaults) brings it
 * back, a few hours after it came due.
 */
export function simulatedLog(marks: number, end: number, { perDay = 10, seed = 7 }: { perDay?: number; seed?: number } = {}): ReviewEntry[] {
  const next = random(seed);
  const memory = schedulerOf({ params: LEARNER_PARAMS });
  // Enough days that the cards introduced give about `marks` marks (about 8 a card over the span).
  const cards = Math.max(1, Math.ceil(marks / 8));
  const days = Math.max(1, Math.ceil(cards / perDay));
  const start = end - (days + 60) * DAY;
  const log: ReviewEntry[] = [];
  for (let card = 0; card < cards; card += 1) {
    const key = `card-${card}`;
    let at = start + Math.floor(card / perDay) * DAY + Math.floor(next() * 8 * 3_600_000);
    let state: ItemState | null = null;
    let known: { stability: number; difficulty: number } | null = null;
    let last = at;
    while (at < end) {
      const elapsed = (at - last) / DAY;
      const recall = known ? forgetting_curve(LEARNER_PARAMS as number[], elapsed, known.stability) : 0.6;
      const mark = next() < recall ? 'good' : 'again';
      log.push([key, at, mark]);
      known = memory.next_state(known, known ? Math.floor(elapsed) : 0, mark === 'good' ? 3 : 1);
      state = grade(state, mark, at);
      last = at;
      at = Math.max(state[0], at + 60_000) + Math.floor(next() * 6 * 3_600_000);
    }
  }
  log.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return log.slice(-marks);
}
