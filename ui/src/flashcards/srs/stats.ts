// Progress of one deck from its review log: items by state, retention over the last 30 days, a
// 12-week heatmap of marks per day and the current streak of days with practice. Pure.
import { addDays, startOfDay, startOfWeek } from './days';
import type { ReviewRecord } from './reviewLog';
import { kindOf, STATE_LEARNING, STATE_NEW, STATE_RELEARNING } from './schedule';

export const RETENTION_DAYS = 30;
export const HEATMAP_WEEKS = 12;

export interface HeatmapDay {
  /** Local midnight. */
  day: number;
  count: number;
  /** Days after today fill the current week's column but hold nothing yet. */
  future: boolean;
}

export interface DeckProgress {
  new: number;
  learning: number;
  known: number;
  /** Marks of items seen before (first sight measures nothing) in the last 30 days. */
  retention: { reviews: number; knew: number };
  /** HEATMAP_WEEKS columns of seven days, Monday first, the last column this week. */
  heatmap: HeatmapDay[];
  /** Consecutive days with at least one mark, ending today (or yesterday when today has none yet). */
  streak: number;
  totalReviews: number;
}

export function deckProgress(keys: readonly string[], reviews: ReviewRecord, now: number): DeckProgress {
  let fresh = 0;
  let learning = 0;
  let known = 0;
  for (const key of keys) {
    const state = reviews.items[key];
    const kind = state ? kindOf(state) : STATE_NEW;
    if (kind === STATE_NEW) fresh += 1;
    else if (kind === STATE_LEARNING || kind === STATE_RELEARNING) learning += 1;
    else known += 1;
  }

  const today = startOfDay(now);
  const retentionFrom = addDays(today, -(RETENTION_DAYS - 1));
  const first = startOfWeek(addDays(today, -7 * (HEATMAP_WEEKS - 1)));
  const perDay = new Map<number, number>();
  const seen = new Set<string>();
  let reviewsCount = 0;
  let knew = 0;
  // Days are looked up by the local midnight of each mark; the log is in time order, so one
  // midnight is computed per day rather than per mark.
  let dayStart = Number.NEGATIVE_INFINITY;
  let dayEnd = Number.NEGATIVE_INFINITY;
  for (const [key, at, mark] of reviews.log) {
    if (at >= dayEnd || at < dayStart) {
      dayStart = startOfDay(at);
      dayEnd = addDays(at, 1);
    }
    perDay.set(dayStart, (perDay.get(dayStart) ?? 0) + 1);
    if (seen.has(key)) {
      if (dayStart >= retentionFrom && at <= now) {
        reviewsCount += 1;
        if (mark === 'good') knew += 1;
      }
    } else seen.add(key);
  }

  const heatmap: HeatmapDay[] = [];
  for (let i = 0; i < HEATMAP_WEEKS * 7; i += 1) {
    const day = addDays(first, i);
    heatmap.push({ day, count: perDay.get(day) ?? 0, future: day > today });
  }

  let streak = 0;
  let day = (perDay.get(today) ?? 0) > 0 ? today : addDays(today, -1);
  while ((perDay.get(day) ?? 0) > 0) {
    streak += 1;
    day = addDays(day, -1);
  }

  return {
    new: fresh,
    learning,
    known,
    retention: { reviews: reviewsCount, knew },
    heatmap,
    streak,
    totalReviews: reviews.log.length,
  };
}

/** The heatmap's shade for a count: 0 none, then four steps relative to the busiest day. */
export function heatLevel(count: number, max: number): 0 | 1 | 2 | 3 | 4 {
  if (count <= 0 || max <= 0) return 0;
  return Math.min(4, Math.max(1, Math.ceil((count / max) * 4))) as 1 | 2 | 3 | 4;
}
