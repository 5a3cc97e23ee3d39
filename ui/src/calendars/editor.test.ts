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

describe('the calendar editor state', () => {
  it('opens with the stored mapping and hosting, loading the feed', () => {
    const state = initialEditorState(stored);
    expect(state.mapping.SUMMARY).toBe('S: ${SUMMARY}');
    expect(state.hosting).toEqual({ hostedUrl: 'http://h/cal/a.ics', editToken: 'tok' });
    expect(state.loading).toBe(true);
    expect(state.samples).toBeNull();
  });

  it('opens a calendar never saved with the default mapping and no hosting', () => {
    const state = initialEditorState(null);
    expect(state.mapping).toEqual(defaultMapping());
    expect(state.hosting.hostedUrl).toBeUndefined();
    expect(state.hosting.editToken).toBeUndefined();
  });

  it('shows the first event of a loaded feed and stops loading', () => {
    const state = run(initialEditorState(null), { type: 'feedLoaded', answer: feed(0, 100, 250) });
    expect(state.loading).toBe(false);
    expect(state.samples).toMatchObject({ total: 250, index: 0, offset: 0 });
    expect(state.feed?.eventCount).toBe(250);
  });

  it('stops loading on a failed feed and keeps what it showed', () => {
    const loaded = run(initialEditorState(null), { type: 'feedLoaded', answer: feed(0, 100, 250) });
    const state = run(loaded, { type: 'refetch' }, { type: 'feedFailed' });
    expect(state.loading).toBe(false);
    expect(state.samples).toBe(loaded.samples);
  });

  it('shows the asked index of a further page, clamped to a feed that shrank', () => {
    const loaded = run(initialEditorState(null), { type: 'feedLoaded', answer: feed(0, 100, 250) });
    const paging = run(loaded, { type: 'pageRequested' });
    expect(paging.pageLoading).toBe(true);
    const next = run(paging, { type: 'pageLoaded', answer: feed(100, 100, 250), index: 100 });
    expect(next.pageLoading).toBe(false);
    expect(next.samples).toMatchObject({ index: 100, offset: 100 });
    const shrunk = run(paging, { type: 'pageLoaded', answer: feed(100, 20, 120), index: 150 });
    expect(shrunk.samples).toMatchObject({ total: 120, index: 119 });
  });

  it('Refetch drops a page still on its way', () => {
    const state = run(initialEditorState(null), { type: 'feedLoaded', answer: feed(0, 100, 250) }, { type: 'pageRequested' }, { type: 'refetch' });
    expect(state).toMatchObject({ loading: true, pageLoading: false });
  });

  it('edits one template and leaves the others', () => {
    const state = run(initialEditorState(stored), { type: 'setTemplate', field: 'LOCATION', value: 'L' });
    expect(state.mapping).toEqual({ ...stored.mapping, LOCATION: 'L' });
  });

  it('remembers the field last focused and the open regex dialog', () => {
    const state = run(initialEditorState(null), { type: 'focusField', field: 'SUMMARY' }, { type: 'openRegex', field: 'X-ROOM' });
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
    const first = run(initialEditorState(null), { type: 'publishEnded', answer: { hostedUrl: 'http://h/cal/a.ics', editToken: 'new' } });
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
    const fresh = savedCalendar(initialEditorState(null), calendar, now);
    expect(fresh).not.toHaveProperty('editToken');
    expect(fresh).not.toHaveProperty('hostedUrl');
  });

  it('sends the edit token with a publish once it has one', () => {
    expect(publishRequest(initialEditorState(stored), calendar)).toEqual({ ...calendar, mapping: stored.mapping, editToken: 'tok' });
    expect(publishRequest(initialEditorState(null), calendar)).not.toHaveProperty('editToken');
  });
});
