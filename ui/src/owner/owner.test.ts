// Reading GET /api/owner: the contract's example, and every kind of missing or wrong field as no data.
import { describe, expect, it } from 'vitest';
import { parseOwner, type Owner } from './owner';

/** The contract's example answer (ops branch, issue 23). */
const EXAMPLE = {
  version: '0.1.0 (abc1234)',
  checks: [
    { status: 'ok', check: 'database', message: 'sound, schema 6' },
    { status: 'warn', check: 'backups', message: 'no backup yet: the first is made a minute after the start' },
    { status: 'fail', check: 'free space', message: 'only 12 MB free' },
  ],
  calendars: [
    {
      id: 'abc',
      name: 'Work',
      feedPath: '/cal/abc.ics',
      url: 'https://upstream.example/x.ics',
      status: {
        upstream: {
          lastFetchAt: '2026-11-25T09:48:00Z',
          lastSuccessAt: '2026-11-25T09:48:00Z',
          lastError: null,
          failures: 0,
          failingSince: null,
          size: 12345,
          events: 42,
        },
        subscribers: [{ family: 'google', lastPollAt: '2026-11-25T07:00:00Z', polls7d: 30 }],
        flagged: false,
      },
    },
  ],
  sync: { enabled: true, vaults: 3, maxVaults: 200, shares: 5, maxShares: 1000, bytes: 12345, maxBytes: 268435456 },
  feeds: { calendars: 4, maxCalendars: 100, bytes: 1234567, maxBytes: 268435456 },
  backups: {
    enabled: true,
    dir: '/var/lib/hearth/backups',
    interval: '1day',
    keep: 7,
    files: [{ name: 'hearth-20261125T030000Z.db', madeAt: '2026-11-25T03:00:00Z', size: 73728 }],
    lastRunAt: '2026-11-25T03:00:00Z',
    lastError: null,
    command: 'the backup command exited with status 0',
    commandOk: true,
  },
};

const read = (value: unknown): Owner => {
  const owner = parseOwner(JSON.parse(JSON.stringify(value)));
  if (!owner) throw new Error('not read');
  return owner;
};

describe('the owner answer', () => {
  it('reads the contract example', () => {
    const owner = read(EXAMPLE);
    expect(owner.version).toBe('0.1.0 (abc1234)');
    expect(owner.checks).toEqual(EXAMPLE.checks);
    expect(owner.calendars).toHaveLength(1);
    expect(owner.calendars?.[0]).toMatchObject({ id: 'abc', name: 'Work', feedPath: '/cal/abc.ics', url: 'https://upstream.example/x.ics' });
    expect(owner.calendars?.[0]?.status?.upstream?.events).toBe(42);
    expect(owner.calendars?.[0]?.status?.subscribers[0]?.lastPollAt.toISOString()).toBe('2026-11-25T07:00:00.000Z');
    expect(owner.sync).toEqual(EXAMPLE.sync);
    expect(owner.feeds).toEqual(EXAMPLE.feeds);
    expect(owner.backups).toEqual({
      ...EXAMPLE.backups,
      files: [{ name: 'hearth-20261125T030000Z.db', madeAt: new Date('2026-11-25T03:00:00Z'), size: 73728 }],
      lastRunAt: new Date('2026-11-25T03:00:00Z'),
    });
  });

  it('reads backups that are off, with the fields that may be null', () => {
    const owner = read({
      ...EXAMPLE,
      backups: { enabled: false, dir: '/b', interval: null, keep: 7, files: [], lastRunAt: null, lastError: null, command: null, commandOk: null },
    });
    expect(owner.backups).toEqual({
      enabled: false,
      dir: '/b',
      interval: null,
      keep: 7,
      files: [],
      lastRunAt: null,
      lastError: null,
      command: null,
      commandOk: null,
    });
  });

  it('refuses only what is not a JSON object', () => {
    for (const value of [null, 'ok', 3, [EXAMPLE], undefined, true]) expect(parseOwner(value)).toBeNull();
  });

  it('reads an empty object as no data anywhere', () => {
    expect(read({})).toEqual({
      version: null,
      checks: null,
      calendars: null,
      sync: null,
      feeds: null,
      backups: null,
      replication: null,
      notifications: null,
      site: null,
    });
  });

  it('reads parts of the wrong kind as no data', () => {
    expect(read({ version: 3, checks: 'ok', calendars: {}, sync: [], feeds: 'x', backups: 7, site: { name: 1 } })).toEqual({
      version: null,
      checks: null,
      calendars: null,
      sync: null,
      feeds: null,
      backups: null,
      replication: null,
      notifications: null,
      site: null,
    });
  });

  it('keeps the checks it can say something of, with an unknown status as none', () => {
    const owner = read({
      checks: [
        { status: 'ok', check: 'database', message: 'sound' },
        { status: 'bad', check: 'clock', message: 'late' },
        { check: '  free space ', message: 42 },
        { status: 'warn' },
        'junk',
        null,
      ],
    });
    expect(owner.checks).toEqual([
      { status: 'ok', check: 'database', message: 'sound' },
      { status: null, check: 'clock', message: 'late' },
      { status: null, check: 'free space', message: null },
    ]);
  });

  it('keeps calendars with an id or a name; a bad status or link is no data', () => {
    const owner = read({
      calendars: [
        { id: 'a', name: 'A', feedPath: '//evil.example/x.ics', url: 5, status: 'ok' },
        { id: 'b', feedPath: 'javascript:alert(1)', status: { flagged: true } },
        { name: 'C', feedPath: '/cal/c.ics' },
        { url: 'https://x/y.ics' },
        7,
      ],
    });
    expect(owner.calendars).toEqual([
      { id: 'a', name: 'A', feedPath: null, url: null, status: null },
      { id: 'b', name: null, feedPath: null, url: null, status: { upstream: null, subscribers: [], flagged: true } },
      { id: null, name: 'C', feedPath: '/cal/c.ics', url: null, status: null },
    ]);
  });

  it('reads counts that are not whole numbers from zero up as no data', () => {
    const owner = read({
      sync: { enabled: 'yes', vaults: -1, maxVaults: 2.5, shares: '5', maxShares: null, bytes: 10, maxBytes: Number.MAX_SAFE_INTEGER },
      feeds: { calendars: 4 },
    });
    expect(owner.sync).toEqual({ enabled: null, vaults: null, maxVaults: null, shares: null, maxShares: null, bytes: 10, maxBytes: Number.MAX_SAFE_INTEGER });
    expect(owner.feeds).toEqual({ calendars: 4, maxCalendars: null, bytes: null, maxBytes: null });
  });

  it('keeps the backup files it can say something of; bad times and sizes are no data', () => {
    const owner = read({
      backups: {
        files: [{ name: 'a.db', madeAt: 'yesterday', size: -1 }, { madeAt: '2026-11-25T03:00:00+01:00' }, { size: 5 }, { name: '' }],
        lastRunAt: '5',
        lastError: '   ',
        command: '',
        commandOk: 'true',
        interval: 86400,
        keep: 0,
      },
    });
    expect(owner.backups?.files).toEqual([
      { name: 'a.db', madeAt: null, size: null },
      { name: null, madeAt: new Date('2026-11-25T02:00:00Z'), size: null },
    ]);
    expect(owner.backups).toMatchObject({
      enabled: null,
      dir: null,
      interval: null,
      keep: 0,
      lastRunAt: null,
      lastError: null,
      command: null,
      commandOk: null,
    });
  });
});
