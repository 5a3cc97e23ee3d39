// Every phrase of the health lines, told in pinned zones so the machine's own zone cannot change them.
import { describe, expect, it } from 'vitest';
import {
  describeHealth,
  failingText,
  feedName,
  FAMILIES,
  FAMILY_LABELS,
  foldLines,
  HEALTH_LINES,
  NEVER_FETCHED,
  NO_SUBSCRIBERS,
  parseCalendarStatus,
  summaryLine,
  type CalendarStatus,
} from './feedHealth';
import type { WhenOptions } from './when';

const UTC: WhenOptions = { timeZone: 'UTC' };
/** Wednesday 25 November 2026, 10:00 UTC. */
const NOW = new Date('2026-11-25T10:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A status as the server sends it (dates as their RFC 3339 text), read by the UI's schema. */
function status(json: Record<string, unknown>): CalendarStatus {
  const read = parseCalendarStatus(JSON.parse(JSON.stringify(json)));
  if (!read) throw new Error('not a status');
  return read;
}

const upstream = (fields: Record<string, unknown>) => ({
  lastFetchAt: null,
  lastSuccessAt: null,
  lastError: null,
  failures: 0,
  failingSince: null,
  size: null,
  events: null,
  ...fields,
});

const sourceOf = (fields: Record<string, unknown>, options: WhenOptions = UTC) => describeHealth(status({ upstream: upstream(fields) }), NOW, options).source;

describe('the source', () => {
  it('when well: when it was last fetched, with the events and size it knows', () => {
    expect(sourceOf({ lastFetchAt: ago(12 * MINUTE), lastSuccessAt: ago(12 * MINUTE), events: 42 })).toEqual([
      'The source was last fetched 12 minutes ago: 42 events.',
    ]);
    expect(sourceOf({ lastFetchAt: ago(12 * MINUTE), events: 42, size: 12_595 })).toEqual(['The source was last fetched 12 minutes ago: 42 events, 12.3 KB.']);
    expect(sourceOf({ lastFetchAt: ago(HOUR), events: 1 })).toEqual(['The source was last fetched 1 hour ago: 1 event.']);
    expect(sourceOf({ lastFetchAt: ago(HOUR), events: 0 })).toEqual(['The source was last fetched 1 hour ago: 0 events.']);
    expect(sourceOf({ lastFetchAt: ago(HOUR), events: 1234 })).toEqual(['The source was last fetched 1 hour ago: 1,234 events.']);
    expect(sourceOf({ lastFetchAt: ago(HOUR), size: 980 })).toEqual(['The source was last fetched 1 hour ago: 980 B.']);
    expect(sourceOf({ lastFetchAt: ago(10 * SECOND) })).toEqual(['The source was last fetched just now.']);
  });

  it('when never fetched since tracking began', () => {
    expect(sourceOf({})).toEqual([NEVER_FETCHED]);
    expect(NEVER_FETCHED).toBe('No fetch of the source has been recorded yet.');
  });

  it('when failing: how often since when, why, and the copy subscribers still get', () => {
    const report = describeHealth(
      status({
        upstream: upstream({
          lastFetchAt: ago(HOUR),
          lastSuccessAt: ago(2 * DAY),
          lastError: '404 Not Found',
          failures: 5,
          failingSince: new Date('2026-11-23T08:00:00Z'),
          size: 12_345,
          events: 42,
        }),
      }),
      NOW,
      UTC,
    );
    expect(report.source).toEqual(['The source has failed 5 times since Monday: 404 Not Found.', 'Subscribers still get the copy from 2 days ago.']);
    expect(report.failure).toBe('The source has failed 5 times since Monday: 404 Not Found.');
  });

  it('tells the start of a run of failures by the same rules', () => {
    const since = (failingSince: string) => sourceOf({ failures: 3, lastError: 'timed out', failingSince })[0];
    expect(since('2026-11-25T08:00:00Z')).toBe('The source has failed 3 times since 08:00: timed out.');
    expect(since('2026-11-03T08:00:00Z')).toBe('The source has failed 3 times since 3 November: timed out.');
    expect(sourceOf({ failures: 1200, failingSince: '2026-11-03T08:00:00Z' })[0]).toBe('The source has failed 1,200 times since 3 November.');
  });

  it('says "once" for a single failure, at its time, on its weekday or on its date', () => {
    const once = (failingSince: string) => sourceOf({ failures: 1, lastError: '404 Not Found', failingSince })[0];
    expect(once('2026-11-25T08:00:00Z')).toBe('The source failed once at 08:00: 404 Not Found.');
    expect(once('2026-11-23T08:00:00Z')).toBe('The source failed once on Monday: 404 Not Found.');
    expect(once('2026-11-03T08:00:00Z')).toBe('The source failed once on 3 November: 404 Not Found.');
  });

  it('falls back to the last fetch, then to no time, when the start of the failures is unknown', () => {
    expect(sourceOf({ failures: 1, lastError: '404 Not Found', lastFetchAt: '2026-11-25T08:00:00Z' })[0]).toBe(
      'The source failed once at 08:00: 404 Not Found.',
    );
    expect(sourceOf({ failures: 1, lastError: '404 Not Found' })[0]).toBe('The source failed the last time it was fetched: 404 Not Found.');
    expect(sourceOf({ failures: 4, lastError: '404 Not Found', lastFetchAt: '2026-11-25T08:00:00Z' })[0]).toBe(
      'The source has failed 4 times in a row: 404 Not Found.',
    );
  });

  it('ends a sentence once, whether or not the reason brings a full stop', () => {
    expect(sourceOf({ failures: 2, lastError: 'the upstream server took too long.' })[0]).toBe(
      'The source has failed 2 times in a row: the upstream server took too long.',
    );
    expect(sourceOf({ failures: 2, lastError: '   ' })[0]).toBe('The source has failed 2 times in a row.');
    expect(sourceOf({ failures: 1 })[0]).toBe('The source failed the last time it was fetched.');
  });

  it('says nothing of a kept copy when there has been no success', () => {
    expect(sourceOf({ failures: 2, lastError: 'x', lastSuccessAt: null })).toHaveLength(1);
    expect(sourceOf({ failures: 2, lastError: 'x', lastSuccessAt: ago(40 * DAY) })[1]).toBe('Subscribers still get the copy from last month.');
    expect(sourceOf({ failures: 1, lastError: 'x', lastSuccessAt: ago(20 * SECOND) })[1]).toBe('Subscribers still get the last good copy, fetched just now.');
  });
});

describe('the calendar apps', () => {
  const linesOf = (subscribers: unknown, options: WhenOptions = UTC) => describeHealth(status({ subscribers }), NOW, options).subscribers;

  it('names each family', () => {
    expect(FAMILIES.map((family) => FAMILY_LABELS[family])).toEqual([
      'Google Calendar',
      'Apple Calendar',
      'Outlook',
      'Thunderbird',
      'Fastmail',
      'Another calendar app',
    ]);
    for (const family of FAMILIES) {
      expect(linesOf([{ family, lastPollAt: ago(3 * HOUR), polls7d: 0 }])).toEqual([`${FAMILY_LABELS[family]} last fetched this feed 3 hours ago.`]);
    }
  });

  it('puts the latest first, with how often this week', () => {
    expect(
      linesOf([
        { family: 'thunderbird', lastPollAt: ago(2 * DAY), polls7d: 1 },
        { family: 'google', lastPollAt: ago(3 * HOUR), polls7d: 30 },
        { family: 'apple', lastPollAt: ago(20 * SECOND), polls7d: 1200 },
        { family: 'fastmail', lastPollAt: ago(12 * DAY), polls7d: 0 },
      ]),
    ).toEqual([
      'Apple Calendar last fetched this feed just now (1,200 times this week).',
      'Google Calendar last fetched this feed 3 hours ago (30 times this week).',
      'Thunderbird last fetched this feed 2 days ago (once this week).',
      'Fastmail last fetched this feed 12 days ago.',
    ]);
  });

  it('says so when no app has fetched the feed', () => {
    expect(linesOf([])).toEqual([NO_SUBSCRIBERS]);
    expect(NO_SUBSCRIBERS).toBe('No calendar app has fetched this feed yet.');
  });

  it('reads an unknown family as another app, and merges two entries of one family', () => {
    expect(
      linesOf([
        { family: 'newcal', lastPollAt: ago(5 * MINUTE), polls7d: 2 },
        { family: 'other', lastPollAt: ago(HOUR), polls7d: 3 },
        { lastPollAt: ago(2 * HOUR), polls7d: 1 },
      ]),
    ).toEqual(['Another calendar app last fetched this feed 5 minutes ago (6 times this week).']);
  });

  it('drops an entry without a time of its last poll, and reads a bad count as none', () => {
    expect(
      linesOf([
        { family: 'google', polls7d: 3 },
        { family: 'google', lastPollAt: 'yesterday', polls7d: 3 },
        { family: 'apple', lastPollAt: ago(HOUR).toISOString(), polls7d: -2 },
        { family: 'microsoft', lastPollAt: ago(2 * HOUR).toISOString(), polls7d: '9' },
        { family: 'fastmail', lastPollAt: ago(3 * HOUR).toISOString(), polls7d: 1.5 },
        'junk',
        null,
      ]),
    ).toEqual([
      'Apple Calendar last fetched this feed 1 hour ago.',
      'Outlook last fetched this feed 2 hours ago.',
      'Fastmail last fetched this feed 3 hours ago.',
    ]);
  });

  it('tells calendar days in the zone it is given', () => {
    const now = new Date('2026-11-26T00:30:00Z');
    const subscribers = [{ family: 'google', lastPollAt: '2026-11-24T22:30:00Z', polls7d: 0 }];
    const read = status({ subscribers });
    expect(describeHealth(read, now, UTC).subscribers).toEqual(['Google Calendar last fetched this feed 2 days ago.']);
    expect(describeHealth(read, now, { timeZone: 'America/New_York' }).subscribers).toEqual(['Google Calendar last fetched this feed yesterday.']);
  });
});

describe('reading the answer', () => {
  const EXAMPLE = {
    upstream: {
      lastFetchAt: '2026-11-25T10:00:00Z',
      lastSuccessAt: '2026-11-23T07:00:00Z',
      lastError: '404 Not Found',
      failures: 5,
      failingSince: '2026-11-23T08:00:00Z',
      size: 12345,
      events: 42,
    },
    subscribers: [{ family: 'google', lastPollAt: '2026-11-25T07:00:00Z', polls7d: 30 }],
    flagged: true,
  };

  it('reads the contract example into its lines', () => {
    expect(describeHealth(status(EXAMPLE), NOW, UTC)).toEqual({
      flagged: true,
      failing: 1,
      source: ['The source has failed 5 times since Monday: 404 Not Found.', 'Subscribers still get the copy from 2 days ago.'],
      failure: 'The source has failed 5 times since Monday: 404 Not Found.',
      subscribers: ['Google Calendar last fetched this feed 3 hours ago (30 times this week).'],
      apps: ['Google Calendar'],
    });
  });

  it('names the failing feed of a merged calendar, the first flagged one first', () => {
    const well = { url: 'https://work.example/cal.ics', flagged: false, upstream: upstream({ lastFetchAt: '2026-11-25T09:00:00Z', events: 3 }) };
    const failing = {
      url: 'https://home.example/family.ics?token=secret',
      flagged: false,
      upstream: upstream({
        lastFetchAt: '2026-11-25T09:00:00Z',
        lastSuccessAt: '2026-11-25T07:00:00Z',
        lastError: 'HTTP 500',
        failures: 3,
        failingSince: '2026-11-25T08:00:00Z',
      }),
    };
    const flagged = { ...failing, url: 'https://club.example/c.ics', flagged: true, upstream: { ...failing.upstream, failures: 40 } };
    const report = describeHealth(status({ upstream: well.upstream, sources: [well, failing] }), NOW, UTC);
    expect(report.failure).toBe('Feed 2 (https://home.example/family.ics?token=•••) has failed 3 times since 08:00: HTTP 500.');
    expect(report.source).toEqual([report.failure, 'Subscribers still get the copy from 3 hours ago.']);
    expect(describeHealth(status({ upstream: flagged.upstream, sources: [well, failing, flagged], flagged: true }), NOW, UTC).failure).toMatch(
      /^Feed 3 \(https:\/\/club\.example\/c\.ics\) has failed 40 times/,
    );
    // None failing: what the answer says of the calendar, as for one feed.
    expect(describeHealth(status({ upstream: well.upstream, sources: [well] }), NOW, UTC).source).toEqual([
      'The source was last fetched 1 hour ago: 3 events.',
    ]);
    expect(status({ sources: 'x' }).sources).toEqual([]);
  });

  it('tells two feeds of one host apart by number, label and address', () => {
    const failing = {
      url: 'http://127.0.0.1:18601/lab.ics',
      label: '  Lab ',
      flagged: false,
      upstream: upstream({ lastFetchAt: '2026-11-25T09:00:00Z', lastError: 'HTTP 404', failures: 1, failingSince: '2026-11-25T09:00:00Z' }),
    };
    const well = { url: 'http://127.0.0.1:18601/work.ics', label: 'Work', flagged: false, upstream: upstream({ lastFetchAt: '2026-11-25T09:00:00Z' }) };
    const read = status({ upstream: well.upstream, sources: [well, failing] });
    expect(read.sources?.map((s) => s.label)).toEqual(['Work', 'Lab']);
    expect(describeHealth(read, NOW, UTC).failure).toBe('Feed 2 “Lab” (http://127.0.0.1:18601/lab.ics) failed once at 09:00: HTTP 404.');
    expect(feedName({ url: '', label: null }, 4)).toBe('Feed 4');
    expect(status({ sources: [{ ...well, label: 7 }] }).sources?.[0]?.label).toBeNull();
  });

  it('reads instants with an offset or fractions of a second', () => {
    const read = status({ upstream: upstream({ lastFetchAt: '2026-11-25T10:48:00.123+01:00' }) });
    expect(read.upstream?.lastFetchAt?.toISOString()).toBe('2026-11-25T09:48:00.123Z');
  });

  it('refuses what is not an object', () => {
    for (const value of [null, 'ok', 3, [EXAMPLE], undefined]) expect(parseCalendarStatus(value)).toBeNull();
  });

  it('reads missing fields as no data: no source line, no apps, not flagged', () => {
    const read = status({});
    expect(read).toEqual({ upstream: null, subscribers: [], flagged: false });
    expect(describeHealth(read, NOW, UTC)).toEqual({ flagged: false, failing: 0, source: [], failure: null, subscribers: [NO_SUBSCRIBERS], apps: [] });
    expect(status({ upstream: 'broken', subscribers: { google: 1 }, flagged: 'yes' })).toEqual({ upstream: null, subscribers: [], flagged: false });
  });

  it('reads fields of the wrong kind in the source as no data', () => {
    const read = status({
      upstream: { lastFetchAt: '5', lastSuccessAt: 'Tuesday', lastError: 404, failures: '5', failingSince: 17, size: -3, events: 4.5 },
    });
    expect(read.upstream).toEqual({
      lastFetchAt: null,
      lastSuccessAt: null,
      lastError: null,
      failures: 0,
      failingSince: null,
      size: null,
      events: null,
    });
    expect(describeHealth(read, NOW, UTC).source).toEqual([NEVER_FETCHED]);
    expect(status({ upstream: { failures: -1, lastFetchAt: '2026-13-45T99:00:00Z' } }).upstream).toMatchObject({ failures: 0, lastFetchAt: null });
    expect(status({ upstream: { failures: 2.5 } }).upstream?.failures).toBe(0);
  });
});

describe("the editor's lines, folded into the room kept for them", () => {
  const well = upstream({ lastFetchAt: ago(12 * MINUTE), events: 42 });
  const failing = upstream({ failures: 5, lastError: '404 Not Found', failingSince: '2026-11-23T08:00:00Z', lastSuccessAt: ago(2 * DAY) });
  const apps = [
    { family: 'google', lastPollAt: ago(HOUR), polls7d: 30 },
    { family: 'apple', lastPollAt: ago(3 * HOUR), polls7d: 3 },
    { family: 'thunderbird', lastPollAt: ago(2 * DAY), polls7d: 1 },
    { family: 'other', lastPollAt: ago(3 * DAY), polls7d: 1 },
  ];
  const fold = (json: Record<string, unknown>, max?: number) => foldLines(describeHealth(status(json), NOW, UTC), max).map((line) => line.text);

  it('keeps room for three lines', () => {
    expect(HEALTH_LINES).toBe(3);
  });

  it('shows everything that fits: the source first, then the apps, latest first', () => {
    expect(fold({ upstream: well })).toEqual(['The source was last fetched 12 minutes ago: 42 events.', NO_SUBSCRIBERS]);
    expect(fold({ upstream: well, subscribers: apps.slice(0, 2) })).toEqual([
      'The source was last fetched 12 minutes ago: 42 events.',
      'Google Calendar last fetched this feed 1 hour ago (30 times this week).',
      'Apple Calendar last fetched this feed 3 hours ago (3 times this week).',
    ]);
    expect(fold({ subscribers: apps })).toEqual([
      'Google Calendar last fetched this feed 1 hour ago (30 times this week).',
      'Apple Calendar last fetched this feed 3 hours ago (3 times this week).',
      'Also fetched by Thunderbird and another calendar app.',
    ]);
  });

  it('names the apps that do not fit in the last line', () => {
    expect(fold({ upstream: well, subscribers: apps.slice(0, 3) })).toEqual([
      'The source was last fetched 12 minutes ago: 42 events.',
      'Google Calendar last fetched this feed 1 hour ago (30 times this week).',
      'Also fetched by Apple Calendar and Thunderbird.',
    ]);
    expect(fold({ upstream: well, subscribers: apps })).toEqual([
      'The source was last fetched 12 minutes ago: 42 events.',
      'Google Calendar last fetched this feed 1 hour ago (30 times this week).',
      'Also fetched by Apple Calendar, Thunderbird and another calendar app.',
    ]);
    expect(fold({ upstream: well, subscribers: apps }, 2)).toEqual([
      'The source was last fetched 12 minutes ago: 42 events.',
      'Google Calendar last fetched this feed 1 hour ago (30 times this week). Also fetched by Apple Calendar, Thunderbird and another calendar app.',
    ]);
  });

  it('never folds the source: a failing one with its kept copy leaves the apps one line', () => {
    expect(fold({ upstream: failing, subscribers: apps.slice(0, 1) })).toEqual([
      'The source has failed 5 times since Monday: 404 Not Found.',
      'Subscribers still get the copy from 2 days ago.',
      'Google Calendar last fetched this feed 1 hour ago (30 times this week).',
    ]);
    expect(fold({ upstream: failing, subscribers: apps.slice(0, 2) })).toEqual([
      'The source has failed 5 times since Monday: 404 Not Found.',
      'Subscribers still get the copy from 2 days ago.',
      'Google Calendar last fetched this feed 1 hour ago (30 times this week). Also fetched by Apple Calendar.',
    ]);
    // Even with no room left, the apps keep one line.
    expect(fold({ upstream: failing, subscribers: apps.slice(0, 2) }, 2)).toHaveLength(3);
  });

  it('marks the failure, and only it', () => {
    const lines = foldLines(describeHealth(status({ upstream: failing, subscribers: apps }), NOW, UTC));
    expect(lines.map((line) => line.failure)).toEqual([true, false, false]);
    expect(foldLines(describeHealth(status({ upstream: well, subscribers: apps }), NOW, UTC)).some((line) => line.failure)).toBe(false);
  });
});

describe('the list line', () => {
  const report = (json: Record<string, unknown>) => describeHealth(status(json), NOW, UTC);
  const failing = upstream({ failures: 30, lastError: '404 Not Found', failingSince: '2026-11-23T08:00:00Z', lastSuccessAt: ago(3 * DAY) });
  const subscribers = [
    { family: 'apple', lastPollAt: ago(3 * HOUR), polls7d: 3 },
    { family: 'google', lastPollAt: ago(HOUR), polls7d: 5 },
  ];

  it("is a flagged calendar's failure", () => {
    expect(summaryLine(report({ upstream: failing, subscribers, flagged: true }))).toBe('The source has failed 30 times since Monday: 404 Not Found.');
  });

  it('is the failure at once, while the source fails for less than a day, and counts the feeds failing', () => {
    const now = report({ upstream: failing, subscribers, flagged: false });
    expect(summaryLine(now)).toBe('The source has failed 30 times since Monday: 404 Not Found.');
    expect(now.failing).toBe(1);
    expect(failingText(now.failing)).toBe('1 feed failing');
    const merged = report({
      upstream: failing,
      sources: [
        { url: 'https://a.example/1.ics', upstream: failing },
        { url: 'https://a.example/2.ics', upstream: upstream({ lastFetchAt: ago(HOUR) }) },
        { url: 'https://a.example/3.ics', upstream: failing },
      ],
    });
    expect(merged.failing).toBe(2);
    expect(failingText(merged.failing)).toBe('2 feeds failing');
  });

  it('is otherwise the latest calendar app', () => {
    expect(summaryLine(report({ upstream: upstream({ lastFetchAt: ago(HOUR) }), subscribers }))).toBe(
      'Google Calendar last fetched this feed 1 hour ago (5 times this week).',
    );
    expect(summaryLine(report({ upstream: upstream({ lastFetchAt: ago(HOUR) }) }))).toBe(NO_SUBSCRIBERS);
  });

  it('still says something when flagged without the failure count', () => {
    expect(summaryLine(report({ upstream: upstream({ lastFetchAt: ago(HOUR) }), flagged: true }))).toBe('The source was last fetched 1 hour ago.');
    expect(summaryLine(report({ flagged: true }))).toBe('Source failing');
  });
});
