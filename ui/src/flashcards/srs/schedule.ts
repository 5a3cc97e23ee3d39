// The scheduling adapter: FSRS-6 from ts-fsrs behind two grades ("Knew it" is Good, "Didn’t know"
// is Again) and a compact stored state, with a deck's own parameters and desired retention (fitted
// by "Optimise my schedule"; absent means FSRS's defaults and 90 %). Pure: every time comes in as
// epoch milliseconds, and the same settings give the same schedule on every device.
import { CLAMP_PARAMETERS, createEmptyCard, default_w, fsrs, Rating, State, type Card as FsrsCard, type FSRS } from 'ts-fsrs';

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

/** FSRS-6 has 21 parameters. */
export const PARAMS_COUNT = 21;
/** FSRS-6's default parameters (what a deck never optimised uses). */
export const DEFAULT_PARAMS: readonly number[] = Object.freeze([...default_w]);
export const DEFAULT_RETENTION = 0.9;
/** Desired retention as Anki allows it to be set. */
export const MIN_RETENTION = 0.7;
export const MAX_RETENTION = 0.97;
/** The bounds FSRS-6 clamps each parameter to (the optimiser's own, w17·w18 ceiling 2). */
export const PARAM_BOUNDS: readonly (readonly [number, number])[] = CLAMP_PARAMETERS(2).map((bounds) => [bounds[0] ?? 0, bounds[1] ?? 0] as const);

/** A deck's schedule settings as stored: absent means the defaults. */
export interface ScheduleSettings {
  readonly params?: readonly number[];
  readonly retention?: number;
}

/** 21 finite numbers each within FSRS-6's bounds, else null. */
export function parseParams(value: unknown): number[] | null {
  if (!Array.isArray(value) || value.length !== PARAMS_COUNT) return null;
  const params: number[] = [];
  for (const [i, part] of (value as unknown[]).entries()) {
    const [low, high] = PARAM_BOUNDS[i] ?? [0, 0];
    if (typeof part !== 'number' || !Number.isFinite(part) || part < low || part > high) return null;
    params.push(part);
  }
  return params;
}

/** A retention from MIN_RETENTION to MAX_RETENTION (a number or its text), else null. */
export function parseRetention(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= MIN_RETENTION && number <= MAX_RETENTION ? number : null;
}

// One scheduler per settings (fuzz off, so every device computes the same due times); the default
// learning steps (1 and 10 minutes). A few decks at most have their own parameters.
const schedulers = new Map<string, FSRS>();
const MAX_SCHEDULERS = 32;

/** The scheduler of `settings` (cached by parameters and retention). */
export function schedulerOf(settings?: ScheduleSettings): FSRS {
  const params = settings?.params ?? DEFAULT_PARAMS;
  const retention = settings?.retention ?? DEFAULT_RETENTION;
  const key = `${params.join(',')}|${retention}`;
  let scheduler = schedulers.get(key);
  if (!scheduler) {
    if (schedulers.size >= MAX_SCHEDULERS) schedulers.clear();
    scheduler = fsrs({ w: [...params], request_retention: retention, enable_fuzz: false });
    schedulers.set(key, scheduler);
  }
  return scheduler;
}

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

/** The state after grading an item (null: never reviewed) at `at`, with the deck's settings. */
export function grade(state: ItemState | null, mark: Grade, at: number, settings?: ScheduleSettings): ItemState {
  return fromCard(schedulerOf(settings).next(toCard(state, at), new Date(at), RATING[mark]).card);
}

/** The state a list of marks (oldest first) leads to from a new item; null for no marks. */
export function replay(marks: Iterable<{ at: number; grade: Grade }>, settings?: ScheduleSettings): ItemState | null {
  let state: ItemState | null = null;
  for (const mark of marks) state = grade(state, mark.grade, mark.at, settings);
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
