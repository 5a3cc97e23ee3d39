import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import type { FeedAnswer } from './api';
import { defaultMapping, type SavedCalendar } from './calendar';
import { editorReducer, initialEditorState, isDirty, type EditorAction, type EditorState } from './editor';
import { draftOf, editorStart } from './editorSession';
import { createCalendarStore } from './storage';

const URL_A = 'https://x/cal.ics';
const URL_B = 'https://y/other.ics';
const stored: SavedCalendar = {
  id: 'a',
  name: 'A',
  url: URL_A,
  mapping: defaultMapping(),
  lastBuiltAt: '2026-01-01T00:00:00.000Z',
  editToken: 'tok',
  hostedUrl: 'http://h/cal/a.ics',
};
const run = (state: EditorState, ...actions: EditorAction[]) => actions.reduce(editorReducer, state);
const NOW = new Date('2026-11-27T11:00:00.000Z');
const answer: FeedAnswer = {
  url: URL_A,
  events: [{ SUMMARY: 'One' }],
  eventCount: 1,
  offset: 0,
  sizeBytes: 10,
  warnings: [],
  warningCount: 0,
  fetchedAt: 'now',
  stale: null,
  sources: [],
  eventSources: [],
  uidsChanged: null,
};

/** Every kind of edit the issue lists: a template, a new feed with a prefix, a filter, a hand change. */
const edits: EditorAction[] = [
  { type: 'setTemplate', field: 'SUMMARY', value: 'Work: ${SUMMARY}' },
  { type: 'sources', action: { type: 'add' } },
  { type: 'sources', action: { type: 'set', key: 1, input: 'url', value: URL_B } },
  { type: 'sources', action: { type: 'set', key: 1, input: 'prefix', value: '[Lab] ' } },
  { type: 'options', action: { type: 'addRule', kind: 'allDay' } },
  { type: 'options', action: { type: 'overrides', action: { type: 'set', override: { uid: 'one', summary: 'Renamed' } } } },
];

describe('the calendar editor keeps unsaved work', () => {
  it('is clean as the list holds it, dirty after any edit, and clean again when the edit is undone', () => {
    const opened = initialEditorState(stored);
    expect(isDirty(opened)).toBe(false);
    // Reading the feed changes nothing that Save keeps.
    expect(isDirty(run(opened, { type: 'feedLoaded', answer, target: { wire: { url: URL_A }, keys: [0] } }))).toBe(false);
    const one: EditorAction[][] = [
      [edits[0] as EditorAction],
      edits.slice(1, 3),
      [{ type: 'sources', action: { type: 'set', key: 0, input: 'prefix', value: '[Work] ' } }],
      [edits[4] as EditorAction],
      [edits[5] as EditorAction],
    ];
    for (const edit of one) expect(isDirty(run(opened, ...edit)), JSON.stringify(edit)).toBe(true);
    const renamed = run(opened, edits[0] as EditorAction);
    expect(isDirty(run(renamed, { type: 'setTemplate', field: 'SUMMARY', value: '${SUMMARY}' }))).toBe(false);
    // A new feed without an address yet is nothing Save would keep.
    expect(isDirty(run(opened, { type: 'sources', action: { type: 'add' } }))).toBe(false);
  });

  it('counts a calendar never saved as unsaved until Save', () => {
    const fresh = initialEditorState(null, URL_A);
    expect(isDirty(fresh)).toBe(true);
    expect(isDirty(run(fresh, { type: 'saved' }))).toBe(false);
  });

  it('opens on its draft with every edit in it, the saved hosting, and says so', () => {
    const storage = createCalendarStore(new MemoryStorage());
    const edited = run(initialEditorState(stored), ...edits);
    expect(storage.writeDraft(draftOf(edited, stored, NOW))).toEqual({ ok: true });
    const start = editorStart(stored, storage.readDraft('a'), URL_A);
    expect(start.restored).toEqual({ savedAt: NOW.toISOString() });
    expect(start.state.mapping.SUMMARY).toBe('Work: ${SUMMARY}');
    expect(start.state.sources.rows.map((r) => [r.url, r.prefix])).toEqual([
      [URL_A, ''],
      [URL_B, '[Lab] '],
    ]);
    expect(start.state.sources.listed).toBe(true);
    expect(start.state.options.filters).toHaveLength(1);
    expect(start.state.options.overrides).toEqual([{ uid: 'one', summary: 'Renamed' }]);
    expect(start.state.hosting).toEqual({ hostedUrl: 'http://h/cal/a.ics', editToken: 'tok' });
    expect(isDirty(start.state)).toBe(true);
    // Saved: clean.
    expect(isDirty(run(start.state, { type: 'saved' }))).toBe(false);
  });

  it('restores a calendar never saved, with the options it was made with', () => {
    const fresh = run(initialEditorState(null, URL_A), { type: 'setTemplate', field: 'LOCATION', value: 'x' });
    const start = editorStart(null, draftOf(fresh, { id: 'n', name: 'N' }, NOW), URL_A);
    expect(start.restored).not.toBeNull();
    expect(start.state.options).toEqual(fresh.options);
    expect(start.state.mapping.LOCATION).toBe('x');
    expect(isDirty(start.state)).toBe(true);
  });

  it('leaves a draft that says what the list says, or is of another address, unrestored', () => {
    const same = draftOf(initialEditorState(stored), stored, NOW);
    expect(editorStart(stored, same, URL_A).restored).toBeNull();
    const other = draftOf(run(initialEditorState(stored), edits[0] as EditorAction), stored, NOW);
    const elsewhere = editorStart(stored, other, 'https://z/third.ics');
    expect(elsewhere.restored).toBeNull();
    expect(elsewhere.state.sources.rows[0]?.url).toBe('https://z/third.ics');
  });

  it('starts over from the saved calendar on Discard, keeping the feed shown when it reads the same feeds', () => {
    const loaded = run(initialEditorState(stored), { type: 'feedLoaded', answer, target: { wire: { url: URL_A }, keys: [0] } });
    const edited = run(loaded, edits[0] as EditorAction, edits[4] as EditorAction);
    const back = run(edited, { type: 'restart', state: initialEditorState(stored) });
    expect(isDirty(back)).toBe(false);
    expect(back.feed).toBe(loaded.feed);
    expect(back.loading).toBe(false);
    // Other feeds: read again.
    const twoFeeds = run(loaded, ...edits.slice(1, 3), { type: 'sources', action: { type: 'commit' } });
    const again = run(twoFeeds, { type: 'restart', state: initialEditorState(stored) });
    expect(again.loading).toBe(true);
    expect(again.sources.rows).toHaveLength(1);
  });
});

describe('drafts in storage', () => {
  it('keeps one draft per calendar, lists them oldest first, and clears them', () => {
    const storage = new MemoryStorage();
    const store = createCalendarStore(storage);
    const draft = (id: string, savedAt: string) => ({ id, name: id, url: URL_A, mapping: defaultMapping(), savedAt });
    store.writeDraft(draft('b', '2026-11-27T10:00:00.000Z'));
    store.writeDraft(draft('a', '2026-11-27T09:00:00.000Z'));
    storage.setItem('calendar:draft:c', '{not json');
    storage.setItem('calendar:draft:d', JSON.stringify(draft('other', '')));
    expect(store.drafts().map((d) => d.id)).toEqual(['a', 'b']);
    store.clearDraft('a');
    expect(store.readDraft('a')).toBeNull();
    expect(store.drafts().map((d) => d.id)).toEqual(['b']);
    // The saved list is untouched by drafts.
    expect(store.list()).toEqual([]);
  });

  it('says so when the browser cannot keep a draft', () => {
    const store = createCalendarStore(new MemoryStorage(10));
    const result = store.writeDraft({ id: 'a', name: 'A', url: URL_A, mapping: defaultMapping(), savedAt: '' });
    expect(result).toEqual({ ok: false, error: expect.stringContaining('could not keep your unsaved changes') as unknown });
    expect(createCalendarStore(null).writeDraft({ id: 'a', name: 'A', url: URL_A, mapping: defaultMapping(), savedAt: '' }).ok).toBe(false);
  });
});
