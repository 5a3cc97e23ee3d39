import { describe, expect, it } from 'vitest';
import type { FeedAnswer } from './api';
import { defaultMapping, type SavedCalendar } from './calendar';
import { editorReducer, initialEditorState, publishRequest, savedCalendar, type EditorAction, type EditorState } from './editor';

const feed = (offset: number, count: number, total: number): FeedAnswer => ({
  url: 'https://x/cal.ics',
  events: Array.from({ length: count }, (_, i) => ({ SUMMARY: `E${offset + i}` })),
  eventCount: total,
  offset,
  sizeBytes: 100,
  warnings: [],
  warningCount: 0,
  fetchedAt: 'Sat, 01 Nov 2025 10:00:00 GMT',
  stale: null,
  sources: [],
  eventSources: [],
  uidsChanged: null,
});

const stored: SavedCalendar = {
  id: 'a',
  name: 'A',
  url: 'https://x/cal.ics',
  mapping: { ...defaultMapping(), SUMMARY: 'S: ${SUMMARY}' },
  lastBuiltAt: '',
  editToken: 'tok',
  hostedUrl: 'http://h/cal/a.ics',
};

const run = (state: EditorState, ...actions: EditorAction[]) => actions.reduce(editorReducer, state);
const calendar = { id: 'a', name: 'A', url: 'https://x/cal.ics' };
const HOME = 'https://home.example/family.ics';
/** The calendar's one address, as the feed was read from it. */
const ONE = { wire: { url: calendar.url }, keys: [0] };

describe('the calendar editor state', () => {
  it('opens with the stored mapping and hosting, loading the feed', () => {
    const state = initialEditorState(stored);
    expect(state.mapping.SUMMARY).toBe('S: ${SUMMARY}');
    expect(state.hosting).toEqual({ hostedUrl: 'http://h/cal/a.ics', editToken: 'tok' });
    expect(state.loading).toBe(true);
    expect(state.samples).toBeNull();
  });

  it('opens a calendar never saved with the default mapping and no hosting', () => {
    const state = initialEditorState(null, calendar.url);
    expect(state.mapping).toEqual(defaultMapping());
    expect(state.hosting.hostedUrl).toBeUndefined();
    expect(state.hosting.editToken).toBeUndefined();
  });

  it('shows the first event of a loaded feed and stops loading', () => {
    const state = run(initialEditorState(null, calendar.url), { type: 'feedLoaded', answer: feed(0, 100, 250), target: ONE });
    expect(state.loading).toBe(false);
    expect(state.samples).toMatchObject({ total: 250, index: 0, offset: 0 });
    expect(state.feed?.eventCount).toBe(250);
  });

  it('stops loading on a failed feed and keeps what it showed', () => {
    const loaded = run(initialEditorState(null, calendar.url), { type: 'feedLoaded', answer: feed(0, 100, 250), target: ONE });
    const state = run(loaded, { type: 'refetch' }, { type: 'feedFailed' });
    expect(state.loading).toBe(false);
    expect(state.samples).toBe(loaded.samples);
  });

  it('shows the asked index of a further page, clamped to a feed that shrank', () => {
    const loaded = run(initialEditorState(null, calendar.url), { type: 'feedLoaded', answer: feed(0, 100, 250), target: ONE });
    const paging = run(loaded, { type: 'pageRequested' });
    expect(paging.pageLoading).toBe(true);
    const next = run(paging, { type: 'pageLoaded', answer: feed(100, 100, 250), target: ONE, index: 100 });
    expect(next.pageLoading).toBe(false);
    expect(next.samples).toMatchObject({ index: 100, offset: 100 });
    const shrunk = run(paging, { type: 'pageLoaded', answer: feed(100, 20, 120), target: ONE, index: 150 });
    expect(shrunk.samples).toMatchObject({ total: 120, index: 119 });
  });

  it('Refetch drops a page still on its way', () => {
    const state = run(
      initialEditorState(null, calendar.url),
      { type: 'feedLoaded', answer: feed(0, 100, 250), target: ONE },
      { type: 'pageRequested' },
      { type: 'refetch' },
    );
    expect(state).toMatchObject({ loading: true, pageLoading: false });
  });

  it('edits one template and leaves the others', () => {
    const state = run(initialEditorState(stored), { type: 'setTemplate', field: 'LOCATION', value: 'L' });
    expect(state.mapping).toEqual({ ...stored.mapping, LOCATION: 'L' });
  });

  it('remembers the field last focused and the open regex dialog', () => {
    const state = run(initialEditorState(null, calendar.url), { type: 'focusField', field: 'SUMMARY' }, { type: 'openRegex', field: 'X-ROOM' });
    expect(state).toMatchObject({ lastFocused: 'SUMMARY', regexField: 'X-ROOM' });
    expect(run(state, { type: 'closeRegex' }).regexField).toBeNull();
  });

  it('keeps its edit token when a republish answers without one', () => {
    const publishing = run(initialEditorState(stored), { type: 'publishStarted' });
    expect(publishing.publishing).toBe(true);
    const state = run(publishing, { type: 'publishEnded', answer: { hostedUrl: 'http://h2/cal/a.ics', editToken: null } });
    expect(state.publishing).toBe(false);
    expect(state.hosting).toEqual({ hostedUrl: 'http://h2/cal/a.ics', editToken: 'tok' });
  });

  it('takes the edit token of a first publish, and changes nothing when a publish fails', () => {
    const first = run(initialEditorState(null, calendar.url), { type: 'publishEnded', answer: { hostedUrl: 'http://h/cal/a.ics', editToken: 'new' } });
    expect(first.hosting).toEqual({ hostedUrl: 'http://h/cal/a.ics', editToken: 'new' });
    expect(run(first, { type: 'publishEnded', answer: null }).hosting).toBe(first.hosting);
  });

  it('forgets the hosting only when unpublishing succeeded', () => {
    const state = run(initialEditorState(stored), { type: 'unpublishStarted' });
    expect(state.unpublishing).toBe(true);
    expect(run(state, { type: 'unpublishEnded', done: false }).hosting).toEqual(state.hosting);
    expect(run(state, { type: 'unpublishEnded', done: true })).toMatchObject({ unpublishing: false, hosting: {} });
  });

  it('saves the hosting fields only when there are some', () => {
    const now = new Date('2026-01-02T03:04:05Z');
    expect(savedCalendar(initialEditorState(stored), calendar, now)).toEqual({ ...stored, lastBuiltAt: '2026-01-02T03:04:05.000Z' });
    const fresh = savedCalendar(initialEditorState(null, calendar.url), calendar, now);
    expect(fresh).not.toHaveProperty('editToken');
    expect(fresh).not.toHaveProperty('hostedUrl');
  });

  it('reads the feed again once other feeds are committed, not while typing or for a label', () => {
    const loaded = run(initialEditorState(null, calendar.url), { type: 'feedLoaded', answer: feed(0, 100, 250), target: ONE });
    const typed = run(loaded, { type: 'sources', action: { type: 'add' } }, { type: 'sources', action: { type: 'set', key: 1, input: 'url', value: HOME } });
    // An empty feed added reads nothing new; typing its address neither.
    expect(typed.loading).toBe(false);
    const committed = run(typed, { type: 'sources', action: { type: 'commit' } });
    expect(committed).toMatchObject({ loading: true, feed: loaded.feed, samples: loaded.samples });
    const relabelled = run(
      { ...committed, loading: false },
      { type: 'sources', action: { type: 'set', key: 1, input: 'label', value: 'Home' } },
      { type: 'sources', action: { type: 'commit' } },
    );
    expect(relabelled.loading).toBe(false);
  });

  it('has no feed once no feed has an address it can read', () => {
    const loaded = run(initialEditorState(null, calendar.url), { type: 'feedLoaded', answer: feed(0, 100, 250), target: ONE });
    const emptied = run(
      loaded,
      { type: 'sources', action: { type: 'add' } },
      { type: 'sources', action: { type: 'set', key: 0, input: 'url', value: ' ' } },
      {
        type: 'sources',
        action: { type: 'commit' },
      },
    );
    expect(emptied).toMatchObject({ feed: null, samples: null, feedTarget: null, loading: false });
    expect(initialEditorState(null, '').loading).toBe(false);
  });

  it("forgets the server's words on addresses and prefixes once a feed is read, and all of them once published", () => {
    const withErrors = run(
      initialEditorState(null, calendar.url),
      { type: 'sources', action: { type: 'add' } },
      { type: 'sources', action: { type: 'serverError', key: 1, input: 'url', message: 'not found' } },
      { type: 'sources', action: { type: 'serverError', key: 1, input: 'label', message: 'too long' } },
    );
    const read = run(withErrors, { type: 'feedLoaded', answer: feed(0, 1, 1), target: ONE });
    expect(read.sources.serverErrors).toEqual({ '1.label': 'too long' });
    const published = run(read, { type: 'publishEnded', answer: { hostedUrl: 'http://h/cal/a.ics', editToken: 't' } });
    expect(published.sources.serverErrors).toEqual({});
  });

  it('saves and publishes a merged calendar with sources (blank feeds left out), and no url on the wire', () => {
    const state = run(
      initialEditorState(stored),
      { type: 'sources', action: { type: 'add' } },
      { type: 'sources', action: { type: 'add' } },
      { type: 'sources', action: { type: 'set', key: 2, input: 'url', value: HOME } },
      { type: 'sources', action: { type: 'set', key: 2, input: 'prefix', value: '[Home] ' } },
    );
    const sources = [{ url: calendar.url }, { url: HOME, prefix: '[Home] ' }];
    expect(savedCalendar(state, calendar, new Date(0))).toMatchObject({ url: calendar.url, sources });
    const request = publishRequest(state, calendar);
    expect(request).toEqual({ id: 'a', name: 'A', sources, mapping: stored.mapping, editToken: 'tok' });
    expect(request).not.toHaveProperty('url');
    // Saved and reopened, the editor shows the same feeds.
    const reopened = initialEditorState(savedCalendar(state, calendar, new Date(0)), calendar.url);
    expect(reopened.sources).toMatchObject({ listed: true, rows: [{ url: calendar.url }, { url: HOME, prefix: '[Home] ' }] });
  });

  it('a calendar of one address saves and publishes exactly as before sources', () => {
    const request = publishRequest(initialEditorState(stored), calendar);
    expect(JSON.stringify(request)).toBe(JSON.stringify({ id: 'a', name: 'A', url: calendar.url, mapping: stored.mapping, editToken: 'tok' }));
    const back = run(initialEditorState(stored), { type: 'sources', action: { type: 'add' } }, { type: 'sources', action: { type: 'remove', key: 1 } });
    expect(JSON.stringify(savedCalendar(back, calendar, new Date(0)))).toBe(JSON.stringify(savedCalendar(initialEditorState(stored), calendar, new Date(0))));
  });

  it('sends the edit token with a publish once it has one', () => {
    expect(publishRequest(initialEditorState(stored), calendar)).toEqual({ ...calendar, mapping: stored.mapping, editToken: 'tok' });
    expect(publishRequest(initialEditorState(null, calendar.url), calendar)).not.toHaveProperty('editToken');
  });
});
