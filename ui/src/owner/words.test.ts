// The owner page's words, told in a pinned zone so the machine's own zone cannot change them.
import { describe, expect, it } from 'vitest';
import type { Backups, Check } from './owner';
import { checksSummary, fileParts, intervalWords, lastRunText, percentText, scheduleText, statusLabel, usage } from './words';

const UTC = { timeZone: 'UTC' };
/** Wednesday 25 November 2026, 10:00 UTC. */
const NOW = new Date('2026-11-25T10:00:00Z');

const check = (status: Check['status']): Check => ({ status, check: 'x', message: 'y' });

describe('the self-check in words', () => {
  it('names each status, and one it does not know', () => {
    expect(statusLabel('ok')).toBe('OK');
    expect(statusLabel('warn')).toBe('Warning');
    expect(statusLabel('fail')).toBe('Failing');
    expect(statusLabel(null)).toBe('Unknown');
  });

  it('says all pass when they do', () => {
    expect(checksSummary([check('ok'), check('ok'), check('ok')])).toBe('All 3 checks pass.');
    expect(checksSummary([check('ok')])).toBe('The one check passes.');
  });

  it('counts the failing first, then warnings, unknown and passing', () => {
    expect(checksSummary([check('ok'), check('warn'), check('fail')])).toBe('Of 3 checks, 1 is failing, 1 has a warning and 1 passes.');
    expect(checksSummary([check('fail'), check('fail'), check('warn'), check('warn'), check(null), check('ok'), check('ok')])).toBe(
      'Of 7 checks, 2 are failing, 2 have warnings, 1 gave no status and 2 pass.',
    );
    expect(checksSummary([check('warn'), check('ok')])).toBe('Of 2 checks, 1 has a warning and 1 passes.');
    expect(checksSummary([check('fail'), check('fail')])).toBe('Of 2 checks, 2 are failing.');
  });

  it('tells a single check by its status', () => {
    expect(checksSummary([check('fail')])).toBe('The one check is failing.');
    expect(checksSummary([check('warn')])).toBe('The one check has a warning.');
    expect(checksSummary([check(null)])).toBe('The one check gave no status.');
  });

  it('tells no checks apart from none sent', () => {
    expect(checksSummary([])).toBe('The server made no checks.');
    expect(checksSummary(null)).toBe('The server sent no checks.');
  });
});

describe('use against a quota', () => {
  it('says counts with their limit and share', () => {
    expect(usage(3, 200, 'count')).toEqual({ text: '3 of 200 (2%)', meter: { value: 3, max: 200 } });
    expect(usage(5, 1000, 'count')).toEqual({ text: '5 of 1,000 (under 1%)', meter: { value: 5, max: 1000 } });
    expect(usage(0, 100, 'count')).toEqual({ text: '0 of 100 (0%)', meter: { value: 0, max: 100 } });
    expect(usage(100, 100, 'count').text).toBe('100 of 100 (100%)');
  });

  it('says sizes for people', () => {
    expect(usage(12_345, 268_435_456, 'bytes')).toEqual({ text: '12.1 KB of 256 MB (under 1%)', meter: { value: 12_345, max: 268_435_456 } });
    expect(usage(1_234_567, 268_435_456, 'bytes').text).toBe('1.2 MB of 256 MB (under 1%)');
    expect(usage(134_217_728, 268_435_456, 'bytes').text).toBe('128 MB of 256 MB (50%)');
  });

  it('fills the meter no further than the limit when over it', () => {
    expect(usage(250, 200, 'count')).toEqual({ text: '250 of 200 (125%)', meter: { value: 200, max: 200 } });
  });

  it('shows the count alone without a limit, and no data without a count', () => {
    expect(usage(3, null, 'count')).toEqual({ text: '3', meter: null });
    expect(usage(3, 0, 'count')).toEqual({ text: '3', meter: null });
    expect(usage(null, 200, 'count')).toEqual({ text: 'No data', meter: null });
    expect(usage(null, null, 'bytes')).toEqual({ text: 'No data', meter: null });
  });

  it('rounds the share, keeping "under 1%" for a little', () => {
    expect(percentText(1, 1000)).toBe('under 1%');
    expect(percentText(0, 1000)).toBe('0%');
    expect(percentText(5, 1000)).toBe('under 1%');
    expect(percentText(10, 1000)).toBe('1%');
    expect(percentText(995, 1000)).toBe('100%');
    expect(percentText(5, 0)).toBe('');
  });
});

describe('the backup schedule', () => {
  const backups = (fields: Partial<Backups>): Backups => ({
    enabled: true,
    dir: '/b',
    interval: '1day',
    keep: 7,
    files: [],
    lastRunAt: null,
    lastError: null,
    command: null,
    commandOk: null,
    ...fields,
  });

  it('reads durations as the server writes them', () => {
    expect(intervalWords('1day')).toBe('every day');
    expect(intervalWords('1d')).toBe('every day');
    expect(intervalWords('6h')).toBe('every 6 hours');
    expect(intervalWords('1h')).toBe('every hour');
    expect(intervalWords('30m')).toBe('every 30 minutes');
    expect(intervalWords('1h 30m')).toBe('every 1 hour and 30 minutes');
    expect(intervalWords('7days')).toBe('every 7 days');
    expect(intervalWords('1week')).toBe('every week');
    expect(intervalWords('2days 12h')).toBe('every 2 days and 12 hours');
    expect(intervalWords('1month 6h 20m 24s')).toBe('every 1 month, 6 hours, 20 minutes and 24 seconds');
    expect(intervalWords('1day 0h')).toBe('every day');
  });

  it('gives up on text it cannot read', () => {
    for (const text of ['', 'daily', '1fortnight', '6 h', '-1d', '0s']) expect(intervalWords(text)).toBeNull();
  });

  it('says how often, and how many are kept', () => {
    expect(scheduleText(backups({}))).toBe('A backup is made every day; the last 7 are kept.');
    expect(scheduleText(backups({ interval: '6h', keep: 1 }))).toBe('A backup is made every 6 hours; the last one is kept.');
    expect(scheduleText(backups({ keep: null }))).toBe('A backup is made every day.');
    expect(scheduleText(backups({ interval: 'fortnightly' }))).toBe('A backup is made every fortnightly; the last 7 are kept.');
    expect(scheduleText(backups({ interval: null }))).toBe('Of the backups, the last 7 are kept.');
    expect(scheduleText(backups({ interval: null, keep: null }))).toBe('The server did not say how often backups are made.');
  });

  it('says when they are off', () => {
    expect(scheduleText(backups({ enabled: false, interval: null }))).toBe('Scheduled backups are off.');
  });

  it('tells the last run and the files in the zone, with how long ago', () => {
    expect(lastRunText(backups({ lastRunAt: new Date('2026-11-25T03:00:00Z') }), NOW, UTC)).toBe('25 November, 03:00 (7 hours ago)');
    expect(lastRunText(backups({ lastRunAt: new Date('2026-11-25T03:00:00Z') }), NOW, { timeZone: 'Europe/Amsterdam' })).toBe(
      '25 November, 04:00 (7 hours ago)',
    );
    expect(lastRunText(backups({}), NOW, UTC)).toBe('None yet');
    expect(fileParts({ name: 'a.db', madeAt: new Date('2026-11-24T03:00:00Z'), size: 73_728 }, NOW, UTC)).toEqual({
      when: '24 November, 03:00 (yesterday)',
      size: '72.0 KB',
    });
    expect(fileParts({ name: 'a.db', madeAt: null, size: 73_728 }, NOW, UTC)).toEqual({ when: null, size: '72.0 KB' });
    expect(fileParts({ name: 'a.db', madeAt: new Date('2025-11-24T03:00:00Z'), size: null }, NOW, UTC)).toEqual({
      when: '24 November 2025, 03:00 (last year)',
      size: null,
    });
  });
});
