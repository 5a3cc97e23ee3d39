// Counts and sizes for people, the same on every screen: "12.3 KB", "1,234 events", "3 of 200".
// Pure.

const UNITS = ['KB', 'MB', 'GB', 'TB'] as const;

/**
 * A byte count for people, 1024-based, to three figures: 980 B, 12.3 KB, 1.0 MB, 256 MB (a tenth
 * below a hundred of the unit, whole from there on). Anything below zero or not a number is 0 B.
 */
export function formatBytes(bytes: number): string {
  const value = Number.isFinite(bytes) ? Math.max(0, bytes) : 0;
  if (value < 1024) return `${Math.round(value)} B`;
  const shown = (scaled: number) => (Number(scaled.toFixed(1)) >= 100 ? String(Math.round(scaled)) : scaled.toFixed(1));
  let scaled = value / 1024;
  let unit = 0;
  // Rounded first, so 1023.96 KB is told as 1.0 MB, not "1024 KB".
  while (Number(shown(scaled)) >= 1024 && unit < UNITS.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  return `${shown(scaled)} ${UNITS[unit] ?? 'TB'}`;
}

/**
 * A whole number for people: 1,234 (what toLocaleString('en') says). Grouped here, not by Intl:
 * the first number format a page asks Intl for loads ICU's data, tens of milliseconds on a phone
 * in the middle of the calendar editor's first render with a feed.
 */
export function formatCount(count: number): string {
  if (!Number.isSafeInteger(count)) return count.toLocaleString('en');
  const grouped = String(Math.abs(count)).replace(/\B(?=(\d{3})+$)/g, ',');
  return count < 0 || Object.is(count, -0) ? `-${grouped}` : grouped;
}

export function formatEventCount(count: number): string {
  return count === 1 ? '1 event' : `${formatCount(count)} events`;
}
