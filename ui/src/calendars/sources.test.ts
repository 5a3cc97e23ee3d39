import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { defaultMapping, type SavedCalendar } from './calendar';
import {
  eventSourceKey,
  initialSources,
  MAX_SOURCES,
  parseSourceField,
  publishTarget,
  readTarget,
  reportOfRow,
  rowOfField,
  serverError,
  sourceNames,
  sourceProblems,
  sourcesReducer,
  spacedPrefix,
  storedFeed,
  wireOf,
  type SourceRow,
  type SourcesAction,
  type SourcesState,
} from './sources';
import { CALENDARS_KEY, createCalendarStore, parseCalendar } from './storage';

const WORK = 'https://work.example/cal.ics';
const HOME = 'webcal://home.example/family.ics';
const TEAM = 'https://work.example/team.ics';

const run = (state: SourcesState, ...actions: SourcesAction[]) => actions.reduce(sourcesReducer, state);
const one = (url = WORK) => initialSources(null, url);
const rows = (...sources: Partial<SourceRow>[]): SourceRow[] => sources.map((s, key) => ({ key, url: '', label: '', prefix: '', kind: 'feed' as const, ...s }));

/** Work and Home as two rows, the second with a prefix. */
function two(): SourcesState {
  return run(
    one(),
    { type: 'add' },
    { type: 'set', key: 1, input: 'url', value: HOME },
    { type: 'set', key: 1, input: 'prefix', value: '[Home] ' },
    { type: 'commit' },
  );
}

const saved = (extra: Partial<SavedCalendar> = {}): SavedCalendar => ({
  id: 'a',
  name: 'A',
  url: WORK,
  mapping: defaultMapping(),
  lastBuiltAt: '2025-01-01T00:00:00.000Z',
  ...extra,
});

describe('sources: opening', () => {
  it('a calendar of one address opens as that address alone, not as a list', () => {
    expect(one()).toEqual({ rows: rows({ url: WORK }), listed: false, committed: rows({ url: WORK }), nextKey: 1, serverErrors: {} });
    expect(initialSources(saved(), WORK).listed).toBe(false);
  });

  it('a calendar saved with sources opens with them, listed', () => {
    const stored = saved({
      sources: [
        { url: WORK, label: 'Work' },
        { url: HOME, prefix: '[Home] ' },
      ],
    });
    const state = initialSources(stored, WORK);
    expect(state.listed).toBe(true);
    expect(state.rows).toEqual(rows({ url: WORK, label: 'Work' }, { url: HOME, prefix: '[Home] ' }));
    expect(state.nextKey).toBe(2);
  });

  it('a link naming another address opens that address alone, as before sources', () => {
    const stored = saved({ sources: [{ url: WORK }, { url: HOME }] });
    expect(initialSources(stored, TEAM)).toMatchObject({ rows: rows({ url: TEAM }), listed: false });
  });
});

describe('sources: editing', () => {
  it('"Add another feed" turns the address into a list with an empty second feed, committed', () => {
    const state = run(one(), { type: 'add' });
    expect(state.listed).toBe(true);
    expect(state.rows).toEqual(rows({ url: WORK }, {}));
    expect(state.committed).toBe(state.rows);
  });

  it('adds at most ten feeds', () => {
    let state = one();
    for (let i = 0; i < 15; i += 1) state = run(state, { type: 'add' });
    expect(state.rows).toHaveLength(MAX_SOURCES);
    expect(run(state, { type: 'add' })).toBe(state);
  });

  it('typing changes the rows but not what the feed is read from, until committed', () => {
    const typed = run(one(), { type: 'add' }, { type: 'set', key: 1, input: 'url', value: HOME });
    expect(typed.rows[1]?.url).toBe(HOME);
    expect(typed.committed[1]?.url).toBe('');
    const committed = run(typed, { type: 'commit' });
    expect(committed.committed[1]?.url).toBe(HOME);
    // Committing what is committed already changes nothing (no read again).
    expect(run(committed, { type: 'commit' })).toBe(committed);
    expect(run(committed, { type: 'set', key: 1, input: 'url', value: HOME })).toBe(committed);
  });

  it('removing down to one plain feed goes back to the one address', () => {
    const state = run(two(), { type: 'remove', key: 0 });
    expect(state.rows).toEqual(rows({ key: 1, url: HOME, prefix: '[Home] ' }).map((r) => ({ ...r, key: 1 })));
    // The remaining feed has a prefix: it stays a list (of one), so the prefix is not lost.
    expect(state.listed).toBe(true);
    const plain = run(two(), { type: 'remove', key: 1 });
    expect(plain.listed).toBe(false);
    expect(plain.committed).toEqual(rows({ url: WORK }));
  });

  it('never removes the last feed, nor one that is not there', () => {
    const state = one();
    expect(run(state, { type: 'remove', key: 0 })).toBe(state);
    const pair = two();
    expect(run(pair, { type: 'remove', key: 7 })).toBe(pair);
  });

  it('moves a feed up or down within the list, committed', () => {
    const state = run(two(), { type: 'move', key: 1, delta: -1 });
    expect(state.rows.map((r) => r.key)).toEqual([1, 0]);
    expect(state.committed).toBe(state.rows);
    expect(run(state, { type: 'move', key: 1, delta: -1 })).toBe(state);
    expect(run(state, { type: 'move', key: 0, delta: 1 })).toBe(state);
  });

  it("keeps the server's words on an input until that input changes", () => {
    const state = run(
      two(),
      { type: 'serverError', key: 1, input: 'prefix', message: 'too long' },
      { type: 'serverError', key: 1, input: 'url', message: 'not found' },
    );
    expect(serverError(state, 1, 'prefix')).toBe('too long');
    const edited = run(state, { type: 'set', key: 1, input: 'prefix', value: '[H] ' });
    expect(serverError(edited, 1, 'prefix')).toBeUndefined();
    expect(serverError(edited, 1, 'url')).toBe('not found');
    expect(serverError(run(state, { type: 'clearServerErrors', inputs: ['url'] }), 1, 'prefix')).toBe('too long');
    expect(run(state, { type: 'clearServerErrors' }).serverErrors).toEqual({});
    // A removed feed's words go with it; words about a feed not there are not kept.
    expect(run(state, { type: 'remove', key: 1 }).serverErrors).toEqual({});
    expect(run(two(), { type: 'serverError', key: 9, input: 'url', message: 'x' }).serverErrors).toEqual({});
  });
});

describe('sources: checks', () => {
  it('says what is wrong with an address, a repeated feed, a label or a prefix', () => {
    const problems = sourceProblems(
      rows(
        { url: WORK },
        { url: 'ftp://x.example/cal.ics' },
        { url: ` ${WORK} ` },
        { url: HOME, label: 'x'.repeat(65) },
        { url: TEAM, prefix: 'Tab\there' },
        { url: '' },
      ),
    );
    expect(problems).toEqual([
      { key: 1, input: 'url', message: 'Only http, https and webcal addresses can be subscribed to, not ftp:' },
      { key: 2, input: 'url', message: 'This feed is already in the list (feed 1).' },
      { key: 3, input: 'label', message: 'The label takes at most 64 characters (this has 65).' },
      { key: 4, input: 'prefix', message: 'The prefix takes no tabs, line breaks or other control characters.' },
    ]);
  });

  it('refuses an address longer than the server takes', () => {
    const long = `${WORK}?${'x'.repeat(2048)}`;
    expect(sourceProblems(rows({ url: long }))).toEqual([
      { key: 0, input: 'url', message: "The address is too long: a feed's address takes at most 2048 bytes." },
    ]);
  });

  it('counts characters as the server does, not UTF-16 units', () => {
    expect(sourceProblems(rows({ url: WORK, prefix: '📅'.repeat(64) }))).toEqual([]);
    expect(sourceProblems(rows({ url: WORK, prefix: '📅'.repeat(65) }))).toHaveLength(1);
  });
});

describe('sources: what is sent', () => {
  it('puts a space after a prefix typed without one, as the placeholder shows it', () => {
    expect(spacedPrefix('[Lab]')).toBe('[Lab] ');
    expect(spacedPrefix('[Lab] ')).toBe('[Lab] ');
    expect(spacedPrefix('Lab:\t')).toBe('Lab:\t');
    expect(spacedPrefix('')).toBe('');
    // No room for one more character: the server would refuse it.
    expect(spacedPrefix('x'.repeat(64))).toBe('x'.repeat(64));
    expect(publishTarget(rows({ url: WORK, prefix: '[W]' }))?.wire).toEqual({ sources: [{ url: WORK, prefix: '[W] ' }] });
    expect(readTarget(rows({ url: WORK, prefix: '[W]' }))?.wire).toEqual({ sources: [{ url: WORK, prefix: '[W] ' }] });
  });

  it('sends one plain feed as the plain address, as every calendar before sources', () => {
    expect(publishTarget(rows({ url: ` ${WORK} ` }))).toEqual({ wire: { url: WORK }, keys: [0] });
    expect(wireOf([{ url: WORK }])).toEqual({ url: WORK });
  });

  it('sends one feed with a label or a prefix as sources, so they are not lost', () => {
    expect(publishTarget(rows({ url: WORK, label: ' Work ' }))?.wire).toEqual({ sources: [{ url: WORK, label: 'Work' }] });
    expect(publishTarget(rows({ url: WORK, prefix: '[W] ' }))?.wire).toEqual({ sources: [{ url: WORK, prefix: '[W] ' }] });
  });

  it('sends several feeds as sources: prefixes as typed, labels trimmed, empty parts and blank rows left out', () => {
    const target = publishTarget(rows({ url: WORK, label: 'Work', prefix: '[Work] ' }, { url: '  ' }, { url: HOME, label: '  ' }));
    expect(target).toEqual({ wire: { sources: [{ url: WORK, prefix: '[Work] ', label: 'Work' }, { url: HOME }] }, keys: [0, 2] });
    expect(JSON.stringify(target?.wire)).toBe(`{"sources":[{"url":"${WORK}","prefix":"[Work] ","label":"Work"},{"url":"${HOME}"}]}`);
  });

  it('has nothing to send without an address', () => {
    expect(publishTarget(rows({ url: '' }, { url: ' ' }))).toBeNull();
    expect(storedFeed(rows({ url: '' }))).toEqual({ url: '' });
  });

  it('reads the feed from the committed feeds it can, without labels, leaving out those it finds wrong', () => {
    const target = readTarget(
      rows({ url: WORK, label: 'Work' }, { url: 'nonsense' }, { url: HOME, prefix: '[Home] ', label: 'x'.repeat(80) }, { url: TEAM, prefix: '\n' }),
    );
    expect(target).toEqual({ wire: { sources: [{ url: WORK }, { url: HOME, prefix: '[Home] ' }] }, keys: [0, 2] });
    expect(readTarget(rows({ url: WORK, label: 'Work' }, { url: 'nonsense' }))).toEqual({ wire: { url: WORK }, keys: [0] });
    expect(readTarget(rows({ url: 'nonsense' }, { url: 'ftp://x' }))).toBeNull();
    expect(readTarget(rows({ url: '' }))).toBeNull();
  });

  it('reads one feed as it is, so the server says what is wrong with it, as before sources', () => {
    expect(readTarget(rows({ url: 'ftp://x.example/cal.ics' }))).toEqual({ wire: { url: 'ftp://x.example/cal.ics' }, keys: [0] });
    expect(readTarget(rows({ url: '', prefix: '\t' }, { url: WORK, prefix: '\t' }))).toEqual({ wire: { sources: [{ url: WORK, prefix: '\t' }] }, keys: [1] });
  });

  it('stores the first address as url, and sources only when the wire has them', () => {
    expect(storedFeed(rows({ url: WORK }, { url: '' }))).toEqual({ url: WORK });
    expect(storedFeed(rows({ url: '' }, { url: HOME, label: 'Home' }, { url: WORK }))).toEqual({
      url: HOME,
      sources: [{ url: HOME, label: 'Home' }, { url: WORK }],
    });
  });
});

describe('sources: CalDAV calendars', () => {
  const login = { username: 'alice', password: 'secret' };
  const DAV = 'https://dav.example/alice/work/';

  it('a chosen CalDAV calendar becomes a source of its own, listed, named by its name', () => {
    const state = run(one(), { type: 'addCaldav', url: DAV, label: 'Work', auth: login });
    expect(state.listed).toBe(true);
    expect(state.rows.map((r) => [r.url, r.label, r.kind])).toEqual([
      [WORK, '', 'feed'],
      [DAV, 'Work', 'caldav'],
    ]);
    expect(state.committed).toBe(state.rows);
    expect(publishTarget(state.rows)?.wire).toEqual({ sources: [{ url: WORK }, { url: DAV, label: 'Work', kind: 'caldav', auth: login }] });
    // The editor reads it with its kind and login, without its label.
    expect(readTarget(state.committed)?.wire).toEqual({ sources: [{ url: WORK }, { url: DAV, kind: 'caldav', auth: login }] });
  });

  it('a calendar without an address takes it as its one source, sent as sources (a one-source calendar)', () => {
    const state = run(one(''), { type: 'addCaldav', url: DAV, label: 'Work', auth: login });
    expect(state.rows.map((r) => r.url)).toEqual([DAV]);
    expect(publishTarget(state.rows)?.wire).toEqual({ sources: [{ url: DAV, label: 'Work', kind: 'caldav', auth: login }] });
    // Removing the other feeds down to a CalDAV one keeps it a source, not a plain address.
    const back = run(one(), { type: 'addCaldav', url: DAV, label: '', auth: login }, { type: 'remove', key: 0 });
    expect(back.listed).toBe(true);
    expect(wireOf([{ url: DAV, kind: 'caldav' }])).toEqual({ sources: [{ url: DAV, kind: 'caldav' }] });
  });

  it('never stores the password; once a publish stores the login it is "Login saved" like any source’s', () => {
    const state = run(one(''), { type: 'addCaldav', url: DAV, label: 'Work', auth: login });
    // Given, not stored yet: the browser keeps no login at all (the server has none to open).
    expect(state.rows[0]?.login).toMatchObject({ state: 'form', method: 'basic', username: 'alice', replacing: false });
    const given = storedFeed(state.rows);
    expect(given).toEqual({ url: DAV, sources: [{ url: DAV, label: 'Work', kind: 'caldav' }] });
    expect(JSON.stringify(given)).not.toContain('secret');
    // Published: the login is the saved one, sent as "set" and stored as "set", the kind kept.
    const published = run(state, { type: 'loginsSaved' });
    expect(published.rows[0]?.login).toEqual({ state: 'saved' });
    expect(publishTarget(published.rows)?.wire).toEqual({ sources: [{ url: DAV, label: 'Work', kind: 'caldav', auth: 'set' }] });
    const stored = storedFeed(published.rows);
    expect(stored).toEqual({ url: DAV, sources: [{ url: DAV, label: 'Work', kind: 'caldav', auth: 'set' }] });
    // Read back, the row is a CalDAV calendar with its login saved.
    const reopened = initialSources(stored, DAV);
    expect(reopened.listed).toBe(true);
    expect(reopened.rows.map((r) => [r.kind, r.login])).toEqual([['caldav', { state: 'saved' }]]);
    // A password found in storage is never read back as a login.
    const read = parseCalendar({ ...saved({ url: DAV }), sources: [{ url: DAV, kind: 'caldav', auth: { username: 'a', password: 'leaked' } }] });
    expect(read?.sources).toEqual([{ url: DAV, kind: 'caldav' }]);
  });

  it('a token found with the picker is a token login', () => {
    const state = run(one(''), { type: 'addCaldav', url: DAV, label: 'Work', auth: { token: 't0k' } });
    expect(readTarget(state.committed)?.wire).toEqual({ sources: [{ url: DAV, kind: 'caldav', auth: { token: 't0k' } }] });
  });

  it('adds none past ten sources', () => {
    let state = one();
    for (let i = 1; i < MAX_SOURCES; i++) state = run(state, { type: 'add' }, { type: 'set', key: i, input: 'url', value: `${TEAM}?${i}` });
    expect(run(state, { type: 'addCaldav', url: DAV, label: 'W', auth: login })).toBe(state);
  });
});

describe('sources: stored calendars (calendars:v1)', () => {
  it('reads a calendar saved before sources exactly as it was', () => {
    const old = { id: 'old', name: 'Old', url: WORK, mapping: defaultMapping(), lastBuiltAt: '', editToken: 't', hostedUrl: 'http://h/cal/old.ics' };
    expect(JSON.stringify(parseCalendar(old))).toBe(JSON.stringify(old));
  });

  it('reads sources, dropping entries without an address and parts that are not text', () => {
    const read = parseCalendar({
      ...saved(),
      sources: [{ url: WORK, label: 'Work', prefix: 3 }, { label: 'no url' }, 'x', { url: HOME, prefix: '[H] ', other: 1 }],
    });
    expect(read?.sources).toEqual([
      { url: WORK, label: 'Work' },
      { url: HOME, prefix: '[H] ' },
    ]);
  });

  it("keeps url on the first source's address", () => {
    expect(parseCalendar({ ...saved({ url: TEAM }), sources: [{ url: WORK }, { url: HOME }] })?.url).toBe(WORK);
  });

  it('reads one plain source, none, or more than ten as the calendar of its url', () => {
    for (const sources of [[{ url: WORK }], [], Array.from({ length: 11 }, (_, i) => ({ url: `${WORK}?${i}` })), 'x']) {
      const read = parseCalendar({ ...saved(), sources });
      expect(read).toEqual(saved());
      expect(read).not.toHaveProperty('sources');
    }
  });

  it('saves and reads a merged calendar, and leaves the other entries byte for byte', () => {
    const storage = new MemoryStorage();
    const old = { id: 'old', name: 'Old', url: HOME, mapping: defaultMapping(), lastBuiltAt: '' };
    storage.setItem(CALENDARS_KEY, JSON.stringify([old]));
    const store = createCalendarStore(storage);
    const merged = saved({
      sources: [
        { url: WORK, prefix: '[Work] ' },
        { url: HOME, label: 'Home' },
      ],
    });
    expect(store.upsert(merged)).toEqual({ ok: true });
    expect(store.get('a')).toEqual(merged);
    expect(storage.getItem(CALENDARS_KEY)).toBe(JSON.stringify([old, merged]));
  });
});

describe('sources: answers about them', () => {
  it('reads the source a field is about', () => {
    expect(parseSourceField('sources[3].prefix')).toEqual({ index: 3, input: 'prefix' });
    expect(parseSourceField('sources[0]')).toEqual({ index: 0, input: 'url' });
    expect(parseSourceField('sources')).toBeNull();
    expect(parseSourceField('sources[1].mapping')).toBeNull();
    expect(parseSourceField('url')).toBeNull();
    expect(parseSourceField(null)).toBeNull();
  });

  it("finds the row of a server's field, numbered as the editor numbers its feeds", () => {
    const list = rows({ url: WORK }, { url: '' }, { url: HOME }, { url: TEAM });
    const target = publishTarget(list);
    // The blank row was not sent: the server's second source is the editor's third feed.
    expect(rowOfField('sources[1].url', target, list)).toEqual({ key: 2, input: 'url', field: 'sources[2].url' });
    expect(rowOfField('sources[2].label', target, list)).toEqual({ key: 3, input: 'label', field: 'sources[3].label' });
    expect(rowOfField('sources[5].url', target, list)).toBeNull();
    expect(rowOfField('mapping.SUMMARY', target, list)).toBeNull();
    // A plain address has no sources to point at.
    expect(rowOfField('sources[0].url', publishTarget(rows({ url: WORK })), rows({ url: WORK }))).toBeNull();
    // A row removed since the request: nowhere to say it.
    expect(rowOfField('sources[1].url', target, rows({ url: WORK }))).toBeNull();
  });

  it('names each feed by its label, else its prefix, else its host, numbering names that repeat', () => {
    expect(
      sourceNames(
        rows(
          { url: WORK, label: ' Work ', prefix: '[W] ' },
          { url: HOME, prefix: ' [Home] ' },
          { url: 'https://a.example/1.ics' },
          { url: 'https://a.example/2.ics' },
          { url: 'not an address' },
          { url: '' },
        ),
      ),
    ).toEqual(['Work', '[Home]', 'a.example (feed 3)', 'a.example (feed 4)', 'Feed 5', 'Feed 6']);
  });

  it("finds each event's feed through the answer's eventSources", () => {
    expect(eventSourceKey([1, 0, 1], [4, 7], 0)).toBe(7);
    expect(eventSourceKey([1, 0, 1], [4, 7], 1)).toBe(4);
    expect(eventSourceKey([1, 0], [4, 7], 5)).toBeUndefined();
    expect(eventSourceKey([-1], [4, 7], 0)).toBeUndefined();
    // One feed read on its own: every event is its, whatever the answer says.
    expect(eventSourceKey([], [4], 3)).toBe(4);
  });

  it("gives each row its feed's report, or the one-address answer's own", () => {
    const sourceReports = [
      { url: WORK, eventCount: 3, sizeBytes: 900, fetchedAt: 'then', stale: null, error: null },
      { url: HOME, eventCount: 0, sizeBytes: 0, fetchedAt: null, stale: null, error: 'upstream answered 500' },
    ];
    const merged = { url: '', eventCount: 3, sizeBytes: 900, fetchedAt: 'then', stale: null, sources: sourceReports };
    expect(reportOfRow(merged, [4, 7], 7)?.error).toBe('upstream answered 500');
    expect(reportOfRow(merged, [4, 7], 5)).toBeUndefined();
    const single = { url: WORK, eventCount: 2, sizeBytes: 10, fetchedAt: 'now', stale: 'timed out', sources: [] };
    expect(reportOfRow(single, [4], 4)).toEqual({ url: WORK, eventCount: 2, sizeBytes: 10, fetchedAt: 'now', stale: 'timed out', error: null });
    expect(reportOfRow(single, [4], 7)).toBeUndefined();
  });
});
