// When the deck list reminds the visitor to export a backup: there are decks, and for 30 days
// there has been no export (counted from the oldest deck when there never was one) and no
// dismissal of the reminder. localStorage can be wiped with site data, or evicted by Safari.
export const REMINDER_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ReminderInput {
  deckCount: number;
  /** ISO time of the last full export, if any. */
  lastExport: string | null;
  /** ISO time the reminder was last dismissed, if ever. */
  dismissedAt: string | null;
  /** createdAt of the stored decks. */
  deckDates: readonly string[];
  now: Date;
}

const parse = (iso: string | null) => {
  if (iso === null) return null;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? null : time;
};

/** The number of whole days without a backup when a reminder is due, else null. */
export function backupReminder(input: ReminderInput): number | null {
  if (input.deckCount === 0) return null;
  let since = parse(input.lastExport);
  if (since === null) {
    // Never exported: the data is at risk since the oldest deck we know of.
    const dates = input.deckDates.map(parse).filter((time): time is number => time !== null);
    since = dates.length === 0 ? null : Math.min(...dates);
  }
  if (since === null) return null;
  const dismissed = parse(input.dismissedAt);
  const now = input.now.getTime();
  const quietSince = dismissed === null ? since : Math.max(since, dismissed);
  if (now - quietSince < REMINDER_DAYS * DAY_MS) return null;
  return Math.floor((now - since) / DAY_MS);
}
