// Past events that stay (README "Calendar options", `history`): events the source stops
// publishing after they ended are still served for some days after their end. Pure: the shape,
// its stored schema, the server's range and the editor's words for it.
import * as v from 'valibot';

export interface CalendarHistory {
  keepDays: number;
}

/** The server's range (crates/engine/src/config/compile.rs, MAX_KEEP_DAYS). */
export const MIN_KEEP_DAYS = 1;
export const MAX_KEEP_DAYS = 366;
/** What the box holds when "Keep past events" is turned on. */
export const DEFAULT_KEEP_DAYS = 30;

export const KEEP_DAYS_TEXT = `whole days from ${MIN_KEEP_DAYS} to ${MAX_KEEP_DAYS}`;

/** The sentence beside the days (the editor's words; plain on purpose). */
export const HISTORY_TEXT = 'Events your calendar’s source stops publishing after they ended stay in the published calendar for this many days.';
/** What is and is not kept, said once under the box. */
export const HISTORY_LIMITS_TEXT =
  'Only events dropped after you publish with this on can stay. An event removed before it ended counts as cancelled and is not kept.';
/** Said while it is off: what turning it on does. */
export const HISTORY_OFF_TEXT =
  'When on, events your calendar’s source stops publishing after they ended stay in the published calendar for the days you choose.';

export const keepDaysInRange = (days: number) => Number.isInteger(days) && days >= MIN_KEEP_DAYS && days <= MAX_KEEP_DAYS;

/** Stored history (calendars:v1, `options.history`): out of range or of another shape reads as off, as before it existed. */
export const StoredHistorySchema = v.fallback(v.optional(v.object({ keepDays: v.pipe(v.number(), v.check(keepDaysInRange)) })), undefined);

/** The history turned on with the default days, or off. */
export const historyWhen = (on: boolean): CalendarHistory | undefined => (on ? { keepDays: DEFAULT_KEEP_DAYS } : undefined);

/** The editor's check, at the path the server names. */
export function checkHistory(history: CalendarHistory | undefined): { path: string; message: string }[] {
  return history && !keepDaysInRange(history.keepDays) ? [{ path: 'history.keepDays', message: KEEP_DAYS_TEXT }] : [];
}
