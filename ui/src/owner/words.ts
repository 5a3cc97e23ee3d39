// The owner page's words (issue 23): the self-check in a sentence, use against a quota, the backup
// schedule, runs and files. Pure: the clock and the time zone come in.
import { formatBytes, formatCount } from '../lib/units';
import { dateTime, timeAgo, type WhenOptions } from '../lib/when';
import type { Backups, BackupFile, Check, CheckStatus } from './owner';

/** A check's status in words, shown beside its icon: never colour alone. Null: not a status this page knows. */
export function statusLabel(status: CheckStatus | null): string {
  switch (status) {
    case 'ok':
      return 'OK';
    case 'warn':
      return 'Warning';
    case 'fail':
      return 'Failing';
    case null:
      return 'Unknown';
  }
}

// Made on first use (as lib/when.ts's): not in the task that evaluates the owner page's code.
let namesFormat: Intl.ListFormat | undefined;
const names = () => (namesFormat ??= new Intl.ListFormat('en-GB', { type: 'conjunction' }));
const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** The self-check in one sentence: "All 3 checks pass.", "Of 3 checks, 1 is failing and 2 pass." */
export function checksSummary(checks: readonly Check[] | null): string {
  if (checks === null) return 'The server sent no checks.';
  if (checks.length === 0) return 'The server made no checks.';
  const count = (status: CheckStatus | null) => checks.filter((check) => check.status === status).length;
  const [ok, warn, fail, unknown] = [count('ok'), count('warn'), count('fail'), count(null)];
  const total = checks.length;
  if (total === 1) {
    const [only] = checks;
    if (only?.status === 'fail') return 'The one check is failing.';
    if (only?.status === 'warn') return 'The one check has a warning.';
    return only?.status === 'ok' ? 'The one check passes.' : 'The one check gave no status.';
  }
  if (ok === total) return `All ${formatCount(total)} checks pass.`;
  const parts = [
    fail > 0 ? `${formatCount(fail)} ${plural(fail, 'is', 'are')} failing` : null,
    warn > 0 ? `${formatCount(warn)} ${plural(warn, 'has a warning', 'have warnings')}` : null,
    unknown > 0 ? `${formatCount(unknown)} gave no status` : null,
    ok > 0 ? `${formatCount(ok)} ${plural(ok, 'passes', 'pass')}` : null,
  ].filter((part): part is string => part !== null);
  return `Of ${formatCount(total)} checks, ${names().format(parts)}.`;
}

/** How much of a quota is used: "under 1%", "2%", "100%" (more when over). */
export function percentText(used: number, max: number): string {
  if (max <= 0) return '';
  const percent = (used / max) * 100;
  if (used > 0 && percent < 1) return 'under 1%';
  return `${Math.round(percent).toLocaleString('en')}%`;
}

export interface Usage {
  /** "3 of 200 (2%)", "3" without a limit, "No data" without a count. */
  text: string;
  /** For a meter: both numbers known and a limit above zero. */
  meter: { value: number; max: number } | null;
}

/** A count or size against its limit, in words and for a meter. */
export function usage(used: number | null, max: number | null, kind: 'count' | 'bytes'): Usage {
  const format = kind === 'bytes' ? formatBytes : formatCount;
  if (used === null) return { text: 'No data', meter: null };
  if (max === null || max <= 0) return { text: format(used), meter: null };
  return { text: `${format(used)} of ${format(max)} (${percentText(used, max)})`, meter: { value: Math.min(used, max), max } };
}

const UNITS: Readonly<Record<string, readonly [string, string]>> = {
  y: ['year', 'years'],
  year: ['year', 'years'],
  years: ['year', 'years'],
  M: ['month', 'months'],
  month: ['month', 'months'],
  months: ['month', 'months'],
  w: ['week', 'weeks'],
  week: ['week', 'weeks'],
  weeks: ['week', 'weeks'],
  d: ['day', 'days'],
  day: ['day', 'days'],
  days: ['day', 'days'],
  h: ['hour', 'hours'],
  hr: ['hour', 'hours'],
  hour: ['hour', 'hours'],
  hours: ['hour', 'hours'],
  m: ['minute', 'minutes'],
  min: ['minute', 'minutes'],
  minute: ['minute', 'minutes'],
  minutes: ['minute', 'minutes'],
  s: ['second', 'seconds'],
  sec: ['second', 'seconds'],
  second: ['second', 'seconds'],
  seconds: ['second', 'seconds'],
};

/**
 * A duration as the server writes it ("1day", "6h", "1h 30m", "7days") as "every …": "every
 * day", "every 6 hours", "every 1 hour and 30 minutes". Null for text it cannot read.
 */
export function intervalWords(interval: string): string | null {
  const tokens = interval.trim().split(/\s+/);
  const parts: string[] = [];
  for (const token of tokens) {
    const match = /^(\d+)([a-zA-Z]+)$/.exec(token);
    const unit = match?.[2] ? UNITS[match[2]] : undefined;
    if (!match || !unit) return null;
    const count = Number(match[1]);
    if (count === 0) continue;
    parts.push(`${formatCount(count)} ${count === 1 ? unit[0] : unit[1]}`);
  }
  if (parts.length === 0) return null;
  const [only] = parts;
  if (parts.length === 1 && only?.startsWith('1 ')) return `every ${only.slice(2)}`;
  return `every ${names().format(parts)}`;
}

/** The schedule: "A backup is made every day; the last 7 are kept." */
export function scheduleText(backups: Backups): string {
  if (backups.enabled === false) return 'Scheduled backups are off.';
  const { interval, keep } = backups;
  const kept = keep === null ? null : keep === 1 ? 'the last one is kept' : `the last ${formatCount(keep)} are kept`;
  if (interval === null) return kept === null ? 'The server did not say how often backups are made.' : `Of the backups, ${kept}.`;
  const every = intervalWords(interval) ?? `every ${interval}`;
  return kept === null ? `A backup is made ${every}.` : `A backup is made ${every}; ${kept}.`;
}

/** When something happened, for a list: "25 November, 04:00 (6 hours ago)", in the zone. */
export function whenText(at: Date, now: Date, options: WhenOptions = {}): string {
  return `${dateTime(at, now, options)} (${timeAgo(at, now, options)})`;
}

/** The last run: when, or that there has been none. */
export function lastRunText(backups: Backups, now: Date, options: WhenOptions = {}): string {
  return backups.lastRunAt ? whenText(backups.lastRunAt, now, options) : 'None yet';
}

/** What a file's line under its name says: when it was made and its size, each null when unknown. */
export function fileParts(file: BackupFile, now: Date, options: WhenOptions = {}): { when: string | null; size: string | null } {
  return { when: file.madeAt ? whenText(file.madeAt, now, options) : null, size: file.size === null ? null : formatBytes(file.size) };
}
