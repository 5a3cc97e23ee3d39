// The scheduling adapter: FSRS-6 from ts-fsrs behind two grades ("Knew it" is Good, "Didn’t know"
// is Again) and a compact stored state. Pure: every time comes in as epoch milliseconds.
import { createEmptyCard, fsrs, Rating, State, type Card as FsrsCard } from 'ts-fsrs';

/** The two grades practice gives: 'good' for "Knew it", 'again' for "Didn’t know". */
export type Grade = 'good' | 'again';

/**
 * One scheduled item's FSRS state as stored: a tuple keeps a 10,000-item log small.
 * [due, stability, difficulty, scheduledDays, learningSteps, reps, lapses, state, lastReview]
 * (times in epoch ms; lastReview 0 when never reviewed; state 0 new, 1 learning, 2 review,
 * 3 relearning).
 */
export type ItemState = readonly [number, number, number, number, number, number, number, number, number];

// The stored numbers of FSRS's states.
export const STATE_NEW: number = State.New;
export const STATE_LEARNING: number = State.Learning;
export const STATE_REVIEW: number = State.Review;
export const STATE_RELEARNING: number = State.Relearning;
const STATES = [State.New, State.Learning, State.Review, State.Relearning] as const;

// Default FSRS-6 weights, 90 % desired retention, the default learning steps (1 and 10 minutes).
const scheduler = fsrs();

const RATING: Record<Grade, Rating.Good | Rating.Again> = { good: Rating.Good, again: Rating.Again };

function toCard(state: ItemState | null, now: number): FsrsCard {
  if (!state) return createEmptyCard(new Date(now));
  const [due, stability, difficulty, scheduledDays, learningSteps, reps, lapses, kind, lastReview] = state;
  // The empty card supplies the fields ts-fsrs 5 deprecated (elapsed_days: its FSRS-6 scheduler
  // reads last_review instead).
  return {
    ...createEmptyCard(new Date(due)),
    stability,
    difficulty,
    scheduled_days: scheduledDays,
    learning_steps: learningSteps,
    reps,
    lapses,
    state: STATES[kind] ?? State.New,
    ...(lastReview > 0 ? { last_review: new Date(lastReview) } : {}),
  };
}

function fromCard(card: FsrsCard): ItemState {
  return [
    card.due.getTime(),
    card.stability,
    card.difficulty,
    card.scheduled_days,
    card.learning_steps,
    card.reps,
    card.lapses,
    card.state,
    card.last_review ? card.last_review.getTime() : 0,
  ];
}

/** The state after grading an item (null: never reviewed) at `at`. */
export function grade(state: ItemState | null, mark: Grade, at: number): ItemState {
  return fromCard(scheduler.next(toCard(state, at), new Date(at), RATING[mark]).card);
}

/** The state a list of marks (oldest first) leads to from a new item; null for no marks. */
export function replay(marks: Iterable<{ at: number; grade: Grade }>): ItemState | null {
  let state: ItemState | null = null;
  for (const mark of marks) state = grade(state, mark.grade, mark.at);
  return state;
}

/** Whether two states are the same, number for number. */
export const sameItemState = (a: ItemState, b: ItemState) => a.every((part, i) => Object.is(part, b[i]));

export const dueAt = (state: ItemState) => state[0];
export const kindOf = (state: ItemState) => state[7];

/** An item is due when it was never reviewed or its due time has come. */
export const isDue = (state: ItemState | null | undefined, now: number) => !state || state[0] <= now;

/** A stored tuple with the shape of an ItemState (finite numbers, a known state), or null. */
export function parseItemState(value: unknown): ItemState | null {
  if (!Array.isArray(value) || value.length !== 9) return null;
  for (const part of value) if (typeof part !== 'number' || !Number.isFinite(part)) return null;
  const kind = value[7] as number;
  if (kind !== 0 && kind !== 1 && kind !== 2 && kind !== 3) return null;
  return value as unknown as ItemState;
}
