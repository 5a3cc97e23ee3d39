// "Optimise my schedule", the pure part: a deck's review log as FSRS training items the way Anki
// builds them, how well a set of parameters fits them (log-loss and RMSE, from FSRS-6's own memory
// model in ts-fsrs), and Anki's rules for what the fit may change: fewer than 8 usable reviews
// keep the parameters as they are, fewer than 64 fit only the first four (the initial
// stabilities), and new parameters are kept only when they fit the history better.
import { forgetting_curve } from 'ts-fsrs';
import { startOfDay } from './days';
import type { ReviewEntry, Seed } from './reviewLog';
import { DEFAULT_PARAMS, PARAM_BOUNDS, parseParams, PARAMS_COUNT, schedulerOf } from './schedule';

/** Below this many usable reviews the parameters stay as they are (Anki's rule). */
export const MIN_REVIEWS_TO_FIT = 8;
/** Below this many, only the first four parameters (the initial stabilities) are fitted (Anki's rule). */
export const MIN_REVIEWS_TO_FIT_ALL = 64;
/** How many of the parameters the short fit changes. */
export const INITIAL_STABILITIES = 4;
/** The optimiser's budget: the log never holds more marks than this (reviewLog's MAX_LOG_ENTRIES). */
export const MAX_FIT_MARKS = 20_000;

/** FSRS's grades as the optimiser numbers them: Again 1, Good 3 (Hard and Easy are not given). */
const RATING = { again: 1, good: 3 } as const;

/**
 * The training set, flat as fsrs-browser's computeParameters takes it: item i is the `lengths[i]`
 * reviews starting after the earlier items', each a rating and the days since the previous review
 * (0 for the first and for one on the same day).
 */
export interface TrainingSet {
  ratings: Uint32Array;
  deltas: Uint32Array;
  lengths: Uint32Array;
  /** The usable reviews: items whose last review came on a later day than the one before. */
  count: number;
}

const DAY = 86_400_000;

/** Whole calendar days (local time) from `from` to `to`. */
const daysBetween = (from: number, to: number) => Math.max(0, Math.round((startOfDay(to) - startOfDay(from)) / DAY));

/**
 * The log as training items, the way Anki builds them: per item its marks in order with the days
 * between them; each mark after the first gives one item, the history up to and including it,
 * kept when that mark came on a later day (a same-day repeat predicts nothing about memory over
 * days). An item with a seed is left out: its history starts before the log (an import, or marks
 * the log dropped), and the optimiser needs it from the first review.
 */
export function trainingSet(log: readonly ReviewEntry[], seeds: Readonly<Record<string, Seed>> = {}): TrainingSet {
  const byItem = new Map<string, { at: number; rating: number }[]>();
  for (const [key, at, mark] of log.slice(-MAX_FIT_MARKS)) {
    if (key in seeds) continue;
    let marks = byItem.get(key);
    if (!marks) byItem.set(key, (marks = []));
    marks.push({ at, rating: RATING[mark] });
  }
  const ratings: number[] = [];
  const deltas: number[] = [];
  const lengths: number[] = [];
  for (const marks of byItem.values()) {
    const itemDeltas = marks.map((mark, i) => (i === 0 ? 0 : daysBetween((marks[i - 1] as { at: number }).at, mark.at)));
    for (let end = 1; end < marks.length; end += 1) {
      if ((itemDeltas[end] ?? 0) === 0) continue;
      for (let i = 0; i <= end; i += 1) {
        ratings.push((marks[i] as { rating: number }).rating);
        deltas.push(itemDeltas[i] ?? 0);
      }
      lengths.push(end + 1);
    }
  }
  return { ratings: Uint32Array.from(ratings), deltas: Uint32Array.from(deltas), lengths: Uint32Array.from(lengths), count: lengths.length };
}

/** How well parameters predict the history: log-loss (what the rule compares) and RMSE, over `reviews` reviews. */
export interface Fit {
  logLoss: number;
  rmse: number;
  reviews: number;
}

/**
 * For each training item, the recall FSRS-6 with `params` predicts for its last review (from the
 * memory state its earlier reviews lead to, over the days since) against what happened.
 */
export function evaluate(set: TrainingSet, params: readonly number[]): Fit {
  const model = schedulerOf({ params });
  let start = 0;
  let loss = 0;
  let squared = 0;
  for (const length of set.lengths) {
    let memory: { stability: number; difficulty: number } | null = null;
    for (let i = start; i < start + length - 1; i += 1) {
      memory = model.next_state(memory, set.deltas[i] ?? 0, set.ratings[i] ?? RATING.good);
    }
    const last = start + length - 1;
    const recall = memory ? forgetting_curve(params as number[], set.deltas[last] ?? 0, memory.stability) : 0.5;
    const p = Math.min(1 - 1e-7, Math.max(1e-7, recall));
    const y = (set.ratings[last] ?? RATING.good) > 1 ? 1 : 0;
    loss -= y * Math.log(p) + (1 - y) * Math.log(1 - p);
    squared += (y - p) ** 2;
    start += length;
  }
  const n = set.lengths.length;
  return n === 0 ? { logLoss: 0, rmse: 0, reviews: 0 } : { logLoss: loss / n, rmse: Math.sqrt(squared / n), reviews: n };
}

/** What the optimiser's answer changes, by Anki's rules. */
export type Outcome =
  /** Too few usable reviews: nothing was fitted and the parameters stay. */
  | { kind: 'too-few'; reviews: number }
  /** The fit was no better than the parameters in use: they stay. */
  | { kind: 'kept'; reviews: number; before: Fit; after: Fit; partial: boolean }
  /** The new parameters fit better and are now the deck's. */
  | { kind: 'improved'; reviews: number; before: Fit; after: Fit; partial: boolean; params: number[] };

/** Whether the optimiser runs at all for `reviews` usable reviews. */
export const canFit = (reviews: number) => reviews >= MIN_REVIEWS_TO_FIT;

/**
 * The parameters the fit may change, by Anki's rules: all of them from MIN_REVIEWS_TO_FIT_ALL
 * usable reviews on, below that only the first four (the rest stay as `current` has them). Null
 * when the optimiser's answer is not 21 parameters within FSRS-6's bounds.
 */
export function candidateParams(current: readonly number[], fitted: ArrayLike<number>, reviews: number): number[] | null {
  if (fitted.length !== PARAMS_COUNT) return null;
  // The optimiser works in 32-bit floats within the same bounds: six decimals, clamped, are what is kept.
  const valid = parseParams(
    Array.from(fitted, (part, i) => {
      const [low, high] = PARAM_BOUNDS[i] ?? [0, 0];
      return Number.isFinite(part) ? Math.min(high, Math.max(low, Math.round(part * 1e6) / 1e6)) : Number.NaN;
    }),
  );
  if (!valid || current.length !== PARAMS_COUNT) return null;
  return reviews >= MIN_REVIEWS_TO_FIT_ALL ? valid : [...valid.slice(0, INITIAL_STABILITIES), ...current.slice(INITIAL_STABILITIES)];
}

/**
 * The decision: the candidate is kept only when its log-loss on the history is lower than that of
 * the parameters in use (`current`, FSRS's defaults for a deck never optimised).
 */
export function decide(set: TrainingSet, current: readonly number[] = DEFAULT_PARAMS, fitted: ArrayLike<number> | null): Outcome {
  if (!canFit(set.count)) return { kind: 'too-few', reviews: set.count };
  const partial = set.count < MIN_REVIEWS_TO_FIT_ALL;
  const before = evaluate(set, current);
  const candidate = fitted && candidateParams(current, fitted, set.count);
  if (!candidate) return { kind: 'kept', reviews: set.count, before, after: before, partial };
  const after = evaluate(set, candidate);
  return after.logLoss < before.logLoss
    ? { kind: 'improved', reviews: set.count, before, after, partial, params: candidate }
    : { kind: 'kept', reviews: set.count, before, after, partial };
}
