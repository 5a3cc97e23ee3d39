// A published calendar's health in words (issue 23): the answer of GET /api/calendars/{id}/status
// (also each calendar's part of GET /api/owner), read leniently (a field that is missing or of the
// wrong kind is no data, never a crash), turned into the sentences the calendar editor, the
// calendar list and the owner page show. Pure: the clock and the time zone come in.
import * as v from 'valibot';
import { maskFeedUrl } from './feedAddress';
import { flag, listOf, record, words } from './schema';
import { formatBytes, formatCount, formatEventCount } from './units';
import { instant, instantSchema, timeAgo, whenPhrase, type WhenOptions } from './when';

export const FAMILIES = ['google', 'apple', 'microsoft', 'thunderbird', 'fastmail', 'other'] as const;
export type Family = (typeof FAMILIES)[number];

/** How the calendar apps the server recognises by their user agent are called on screen. */
export const FAMILY_LABELS: Readonly<Record<Family, string>> = {
  google: 'Google Calendar',
  apple: 'Apple Calendar',
  microsoft: 'Outlook',
  thunderbird: 'Thunderbird',
  fastmail: 'Fastmail',
  other: 'Another calendar app',
};

export const NO_SUBSCRIBERS = 'No calendar app has fetched this feed yet.';
export const NEVER_FETCHED = 'No fetch of the source has been recorded yet.';
/** The flag of a calendar whose source has failed for a day or more (with an icon, not colour alone). */
export const FLAG_TEXT = 'Source failing';

const whole = v.pipe(v.number(), v.integer(), v.minValue(0));

const UpstreamSchema = record({
  lastFetchAt: instant,
  lastSuccessAt: instant,
  /** Why the last fetch failed; null when it succeeded. */
  lastError: words,
  /** Consecutive failures, 0 when well. */
  failures: v.fallback(whole, 0),
  /** The first failure of the current run. */
  failingSince: instant,
  size: v.fallback(v.nullable(whole), null),
  events: v.fallback(v.nullable(whole), null),
});

/** One family of calendar apps; without a time of its last poll there is nothing to say of it. */
const SubscriberSchema = record({
  // A family this page does not know yet is still some calendar app.
  family: v.fallback(v.picklist(FAMILIES), 'other'),
  lastPollAt: instantSchema,
  polls7d: v.fallback(whole, 0),
});

/** One feed of a merged calendar and how it has been doing. */
const SourceHealthSchema = record({
  url: v.fallback(v.string(), ''),
  /** The name its owner gave the feed in the editor; null when none. */
  label: words,
  upstream: v.fallback(v.nullable(UpstreamSchema), null),
  flagged: flag(false),
});

export const CalendarStatusSchema = record({
  /** Null when the answer says nothing of the source (of a merged calendar: its first failing feed's, else its first feed's). */
  upstream: v.fallback(v.nullable(UpstreamSchema), null),
  subscribers: listOf(SubscriberSchema),
  flagged: flag(false),
  /** A merged calendar's feeds, each with its health; absent for a calendar of one feed. */
  sources: v.optional(listOf(SourceHealthSchema)),
});

export type CalendarStatus = v.InferOutput<typeof CalendarStatusSchema>;
export type Upstream = NonNullable<CalendarStatus['upstream']>;
export type Subscriber = CalendarStatus['subscribers'][number];

/** The status read as the module comment says; null when it is not a JSON object at all. */
export function parseCalendarStatus(value: unknown): CalendarStatus | null {
  const result = v.safeParse(CalendarStatusSchema, value);
  return result.success ? result.output : null;
}

export interface HealthReport {
  /** The source has failed for a day or more (the server decides). */
  flagged: boolean;
  /** How many of its feeds failed the last time they were fetched (the one feed: 0 or 1). */
  failing: number;
  /** What the source is doing: one sentence, or two when failing with a good copy kept. */
  source: string[];
  /** The sentence saying how the source fails, or null when it does not. */
  failure: string | null;
  /** One sentence per family of calendar apps, latest first; or the one saying there are none. */
  subscribers: string[];
  /** The names of those families as a sentence has them inside ("another calendar app"), latest first. */
  apps: string[];
}

/** A sentence ends with a full stop, unless the server's words brought their own. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** What subscribers get while the source fails ("the copy from just now" would read oddly). */
const keptCopy = (ago: string) =>
  ago === 'just now' ? 'Subscribers still get the last good copy, fetched just now.' : `Subscribers still get the copy from ${ago}.`;

/**
 * The source's sentences (see HealthReport.source), and which of them tells the failure. `subject`
 * names a failing feed of a merged calendar (feedName).
 */
function describeSource(upstream: Upstream, now: Date, options: WhenOptions, subject = 'The source'): { source: string[]; failure: string | null } {
  const { failures, lastError, failingSince, lastFetchAt, lastSuccessAt } = upstream;
  const why = lastError ? `: ${lastError}` : '';
  if (failures > 0) {
    let failure: string;
    if (failures === 1) {
      // One failure: it is the last fetch, so that time stands in when the run's start is unknown.
      const when = failingSince ?? lastFetchAt;
      failure = when ? `${subject} failed once ${whenPhrase(when, now, 'at', options)}${why}` : `${subject} failed the last time it was fetched${why}`;
    } else {
      const count = formatCount(failures);
      failure = failingSince
        ? `${subject} has failed ${count} times ${whenPhrase(failingSince, now, 'since', options)}${why}`
        : `${subject} has failed ${count} times in a row${why}`;
    }
    failure = sentence(failure);
    const kept = lastSuccessAt ? [keptCopy(timeAgo(lastSuccessAt, now, options))] : [];
    return { source: [failure, ...kept], failure };
  }
  if (!lastFetchAt) return { source: [NEVER_FETCHED], failure: null };
  const copy = [upstream.events === null ? null : formatEventCount(upstream.events), upstream.size === null ? null : formatBytes(upstream.size)].filter(
    (part): part is string => part !== null,
  );
  const what = copy.length > 0 ? `: ${copy.join(', ')}` : '';
  return { source: [`The source was last fetched ${timeAgo(lastFetchAt, now, options)}${what}.`], failure: null };
}

/** One entry per family (the latest poll, the polls added up), latest first. */
export function latestByFamily(subscribers: readonly Subscriber[]): Subscriber[] {
  const byFamily = new Map<Family, Subscriber>();
  for (const subscriber of subscribers) {
    const seen = byFamily.get(subscriber.family);
    if (!seen) {
      byFamily.set(subscriber.family, subscriber);
      continue;
    }
    const latest = seen.lastPollAt.getTime() >= subscriber.lastPollAt.getTime() ? seen : subscriber;
    byFamily.set(subscriber.family, { ...latest, polls7d: seen.polls7d + subscriber.polls7d });
  }
  return [...byFamily.values()].sort((a, b) => b.lastPollAt.getTime() - a.lastPollAt.getTime());
}

function subscriberLine(subscriber: Subscriber, now: Date, options: WhenOptions): string {
  const { polls7d } = subscriber;
  const often = polls7d === 1 ? ' (once this week)' : polls7d > 1 ? ` (${formatCount(polls7d)} times this week)` : '';
  return `${FAMILY_LABELS[subscriber.family]} last fetched this feed ${timeAgo(subscriber.lastPollAt, now, options)}${often}.`;
}

/**
 * How a feed of a merged calendar is named in a sentence: its number (as the editor numbers its
 * feeds), its label when it has one, and its address (masked: private feeds carry tokens), so two
 * feeds of one host are told apart: "Feed 2 “Lab” (https://example.org/lab.ics)".
 */
export function feedName(source: { url: string; label: string | null }, number: number): string {
  const address = source.url.trim() === '' ? '' : ` (${maskFeedUrl(source.url.trim())})`;
  return `${feedLabel(source, number)}${address}`;
}

/** A feed of a merged calendar by its number and label alone: "Feed 2 “Lab”". */
export function feedLabel(source: { label: string | null }, number: number): string {
  return source.label === null ? `Feed ${number}` : `Feed ${number} “${source.label}”`;
}

/**
 * The feed of a merged calendar its health is told of: the first flagged, else the first failing,
 * with the words that name it; null when none fails (or the calendar has one feed).
 */
function failingFeed(status: CalendarStatus): { upstream: Upstream; subject: string } | null {
  const sources = status.sources ?? [];
  const failing = sources.find((s) => s.flagged && s.upstream) ?? sources.find((s) => (s.upstream?.failures ?? 0) > 0);
  if (!failing?.upstream) return null;
  return { upstream: failing.upstream, subject: feedName(failing, sources.indexOf(failing) + 1) };
}

/** The sentences of a status at `now`. */
export function describeHealth(status: CalendarStatus, now: Date, options: WhenOptions = {}): HealthReport {
  // A merged calendar names the feed that fails; the others still serve (their events stay).
  const feed = failingFeed(status);
  const { source, failure } = feed
    ? describeSource(feed.upstream, now, options, feed.subject)
    : status.upstream
      ? describeSource(status.upstream, now, options)
      : { source: [], failure: null };
  const families = latestByFamily(status.subscribers);
  const failed = (upstream: Upstream | null) => (upstream?.failures ?? 0) > 0;
  const sources = status.sources ?? [];
  return {
    flagged: status.flagged,
    failing: sources.length > 0 ? sources.filter((s) => failed(s.upstream)).length : failed(status.upstream) ? 1 : 0,
    source,
    failure,
    subscribers: families.length > 0 ? families.map((s) => subscriberLine(s, now, options)) : [NO_SUBSCRIBERS],
    apps: families.map((s) => (s.family === 'other' ? 'another calendar app' : FAMILY_LABELS[s.family])),
  };
}

/** How many lines the editor's section shows, and keeps the room of while a check runs. */
export const HEALTH_LINES = 3;

export interface HealthLine {
  text: string;
  /** The sentence telling how the source fails (shown in bold, behind the flag when flagged). */
  failure: boolean;
}

// Made on first use (see when.ts): most screens that import this module never list apps.
let namesFormat: Intl.ListFormat | undefined;
const names = () => (namesFormat ??= new Intl.ListFormat('en-GB', { type: 'conjunction' }));

/** "Also fetched by Thunderbird and Fastmail." */
export const alsoFetchedBy = (apps: readonly string[]) => `Also fetched by ${names().format(apps)}.`;

/**
 * The report in at most `max` lines (HEALTH_LINES), so the room kept for them is never outgrown:
 * the source's lines first, then the calendar apps, latest first. Apps that do not fit are named
 * in the last line ("Also fetched by Thunderbird and Fastmail."): on a line of its own when there
 * is room for one app's line before it, else after the latest app's sentence. The source's lines
 * are never folded; when they fill `max`, the apps still get their one line.
 */
export function foldLines(report: HealthReport, max: number = HEALTH_LINES): HealthLine[] {
  const source = report.source.map((text) => ({ text, failure: text === report.failure }));
  const room = Math.max(1, max - source.length);
  const { subscribers, apps } = report;
  let shown: string[];
  if (subscribers.length <= room) shown = subscribers;
  else if (room >= 2) shown = [...subscribers.slice(0, room - 1), alsoFetchedBy(apps.slice(room - 1))];
  else shown = [`${subscribers[0] ?? ''} ${alsoFetchedBy(apps.slice(1))}`];
  return [...source, ...shown.map((text) => ({ text, failure: false }))];
}

/**
 * The one sentence the calendar list shows: a failing calendar's failure, flagged or not yet (its
 * source's first sentence if the failure count is missing), else the latest calendar app's.
 */
export function summaryLine(report: HealthReport): string {
  if (report.flagged || report.failing > 0) return report.failure ?? report.source[0] ?? FLAG_TEXT;
  return report.subscribers[0] ?? NO_SUBSCRIBERS;
}

/** The list's marker of feeds failing now, before the day-long flag: "1 feed failing". */
export const failingText = (failing: number) => `${formatCount(failing)} ${failing === 1 ? 'feed' : 'feeds'} failing`;
