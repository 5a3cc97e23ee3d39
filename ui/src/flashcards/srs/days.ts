// Calendar days in the browser's time zone, for the daily new-card cap, the heatmap and the
// streak. Days are named by the epoch ms of their local midnight; DST-safe (no 24 h arithmetic).

/** Local midnight of the day holding `at`. */
export function startOfDay(at: number): number {
  const date = new Date(at);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** Local midnight `days` days after the day holding `at` (negative: before). */
export function addDays(at: number, days: number): number {
  const date = new Date(at);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days).getTime();
}

/** Local midnight of the Monday of the week holding `at`. */
export function startOfWeek(at: number): number {
  const weekday = (new Date(at).getDay() + 6) % 7;
  return addDays(at, -weekday);
}
