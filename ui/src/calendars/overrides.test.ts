import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { defaultMapping, type SavedCalendar } from './calendar';
import { editorReducer, initialEditorState, publishRequest, savedCalendar } from './editor';
import {
  buildConfig,
  CalendarOptionsSchema,
  checkOptions,
  emptyOptions,
  isEmptyOptions,
  optionsReducer,
  problemFromServer,
  type OptionsAction,
} from './options';
import {
  changesSomething,
  checkOverrides,
  cleanOverride,
  describeOverride,
  describeShift,
  findOverride,
  goneKeys,
  isOverridePath,
  MAX_NOTE_CHARS,
  MAX_OVERRIDES,
  MAX_SHIFT_MINUTES,
  MAX_SUMMARY_CHARS,
  overrideIndexOf,
  overrideKey,
  overridesReducer,
  StoredOverridesSchema,
  wireOverrides,
  type EventOverride,
  type OverridesAction,
} from './overrides';
import { parseCalendar } from './storage';

const run = (list: readonly EventOverride[], ...actions: OverridesAction[]) => actions.reduce(overridesReducer, list);
const set = (override: EventOverride): OverridesAction => ({ type: 'set', override });

const retitled: EventOverride = { uid: 'team@x', summary: 'Budget meeting', shiftMinutes: 30, eventTitle: 'Team meeting' };
const hiddenOne: EventOverride = { uid: 'weekly@x', recurrenceId: '20240311T100000', hide: true, eventTitle: 'Weekly' };

describe('adding, replacing and undoing', () => {
  it('adds one override per event and replaces it in its place when the same event changes again', () => {
    const two = run([], set(retitled), set(hiddenOne));
    expect(two).toEqual([retitled, hiddenOne]);
    const again = run(two, set({ uid: ' team@x ', note: 'Bring the numbers' }));
    expect(again).toEqual([{ uid: 'team@x', note: 'Bring the numbers' }, hiddenOne]);
    // Another occurrence of the series is another event; the RECURRENCE-ID is compared as the server does.
    expect(run(two, set({ uid: 'weekly@x', recurrenceId: '20240318T100000', hide: true }))).toHaveLength(3);
    expect(findOverride(two, { uid: 'weekly@x', recurrenceId: ' 20240311t100000 ' })).toBe(1);
    expect(findOverride(two, { uid: 'weekly@x' })).toBe(-1);
  });

  it('undoes by position, and ignores what names nothing', () => {
    const two = run([], set(retitled), set(hiddenOne));
    expect(run(two, { type: 'remove', index: 0 })).toEqual([hiddenOne]);
    expect(run(two, { type: 'remove', index: 2 })).toBe(two);
    expect(run(two, { type: 'remove', index: -1 })).toBe(two);
  });

  it('takes no override that changes nothing or names no event, and no new one past the limit', () => {
    const none: EventOverride[] = [];
    expect(run(none, set({ uid: 'a', summary: '  ', note: ' ', shiftMinutes: 0 }))).toBe(none);
    expect(run(none, set({ uid: ' ', hide: true }))).toBe(none);
    const full = Array.from({ length: MAX_OVERRIDES }, (_, i): EventOverride => ({ uid: `e${i}`, hide: true }));
    expect(run(full, set({ uid: 'one more', hide: true }))).toBe(full);
    // A change to an event already in the list still replaces it.
    expect(run(full, set({ uid: 'e3', summary: 'X' }))[3]).toEqual({ uid: 'e3', summary: 'X' });
  });

  it('keeps a hidden event with nothing else, and leaves out blank parts', () => {
    expect(cleanOverride({ uid: 'a', hide: true, summary: 'X', shiftMinutes: 5, eventTitle: ' A ' })).toEqual({ uid: 'a', hide: true, eventTitle: 'A' });
    expect(cleanOverride({ uid: 'a', recurrenceId: ' ', summary: ' New ', shiftMinutes: 0, note: 'line 1\nline 2\n\n' })).toEqual({
      uid: 'a',
      summary: 'New',
      note: 'line 1\nline 2',
    });
    expect(changesSomething({ uid: 'a' })).toBe(false);
    expect(changesSomething({ uid: 'a', shiftMinutes: -15 })).toBe(true);
  });
});

describe('the checks, at the paths the server names', () => {
  it('holds to the server’s limits', () => {
    const problems = checkOverrides([
      { uid: 'ok', summary: 'x'.repeat(MAX_SUMMARY_CHARS) },
      { uid: 'a', summary: 'x'.repeat(MAX_SUMMARY_CHARS + 1) },
      { uid: 'b', summary: 'two\nlines' },
      { uid: 'c', note: 'x'.repeat(MAX_NOTE_CHARS + 1) },
      { uid: 'd', note: 'tab\tand\nbreak are fine' },
      { uid: 'e', note: 'bell \u0007' },
      { uid: 'f', shiftMinutes: MAX_SHIFT_MINUTES + 1 },
      { uid: 'g', shiftMinutes: 1.5 },
      { uid: 'h', shiftMinutes: -MAX_SHIFT_MINUTES },
      { uid: ' ', hide: true },
      { uid: 'i', recurrenceId: 'tomorrow', hide: true },
      { uid: 'j', hide: true, note: 'x' },
      { uid: 'k' },
      { uid: 'u'.repeat(1025), hide: true },
    ]);
    expect(problems.map((p) => p.path)).toEqual([
      'overrides[1].summary',
      'overrides[2].summary',
      'overrides[3].note',
      'overrides[5].note',
      'overrides[6].shiftMinutes',
      'overrides[7].shiftMinutes',
      'overrides[9].uid',
      'overrides[10].recurrenceId',
      'overrides[11]',
      'overrides[12]',
      'overrides[13].uid',
    ]);
  });

  it('counts characters as the server does (an emoji is one)', () => {
    expect(checkOverrides([{ uid: 'a', summary: '🎉'.repeat(MAX_SUMMARY_CHARS) }])).toEqual([]);
    expect(checkOverrides(Array.from({ length: MAX_OVERRIDES + 1 }, (_, i) => ({ uid: `e${i}`, hide: true as const }))).map((p) => p.path)).toEqual([
      'overrides',
    ]);
  });

  it('reads paths about overrides, and the options hand the server’s words to them', () => {
    expect(isOverridePath('overrides[2].summary')).toBe(true);
    expect(isOverridePath('overrides')).toBe(true);
    expect(isOverridePath('overridesX')).toBe(false);
    expect(overrideIndexOf('overrides[12].note')).toBe(12);
    expect(overrideIndexOf('overrides')).toBeNull();
    expect(problemFromServer({ message: 'at most 500 characters', field: 'overrides[2].summary' })).toEqual({
      path: 'overrides[2].summary',
      message: 'at most 500 characters',
    });
    expect(problemFromServer({ message: '1 to 366 days', field: 'history.keepDays' })).toEqual({ path: 'history.keepDays', message: '1 to 366 days' });
    expect(checkOptions({ filters: [], overrides: [{ uid: 'a' }], history: { keepDays: 0 } }).map((p) => p.path)).toEqual(['overrides[0]', 'history.keepDays']);
  });
});

describe('what is sent', () => {
  it('sends the overrides in their order without the titles this browser keeps', () => {
    expect(wireOverrides([retitled, hiddenOne])).toEqual([
      { uid: 'team@x', summary: 'Budget meeting', shiftMinutes: 30 },
      { uid: 'weekly@x', recurrenceId: '20240311T100000', hide: true },
    ]);
    const options = optionsReducer(emptyOptions(), { type: 'overrides', action: set(retitled) });
    expect(buildConfig(defaultMapping(), options)).toEqual({
      mapping: defaultMapping(),
      overrides: [{ uid: 'team@x', summary: 'Budget meeting', shiftMinutes: 30 }],
    });
  });

  it('goes beside the other options in Build & Host, with history', () => {
    const actions: OptionsAction[] = [
      { type: 'overrides', action: set(hiddenOne) },
      { type: 'setHistory', history: { keepDays: 45 } },
    ];
    const state = actions.reduce((s, action) => editorReducer(s, { type: 'options', action }), initialEditorState(null, 'https://x/a.ics'));
    expect(publishRequest(state, { id: 'a', name: 'A' })).toEqual({
      id: 'a',
      name: 'A',
      url: 'https://x/a.ics',
      mapping: defaultMapping(),
      timezones: 'repair',
      overrides: [{ uid: 'weekly@x', recurrenceId: '20240311T100000', hide: true }],
      history: { keepDays: 45 },
      occurrences: 'each',
    });
  });

  it('leaves the keys out once the last override is undone and history is off: the options read as before', () => {
    const actions: OptionsAction[] = [
      { type: 'overrides', action: set(retitled) },
      { type: 'setHistory', history: { keepDays: 30 } },
      { type: 'overrides', action: { type: 'remove', index: 0 } },
      { type: 'setHistory', history: undefined },
    ];
    const options = actions.reduce(optionsReducer, emptyOptions());
    expect(options).toEqual(emptyOptions());
    expect(isEmptyOptions(options)).toBe(true);
    expect(buildConfig(defaultMapping(), options)).toEqual({ mapping: defaultMapping() });
  });
});

describe('stored with the calendar', () => {
  const old: SavedCalendar = { id: 'old', name: 'Old', url: 'https://x/o.ics', mapping: defaultMapping(), lastBuiltAt: '' };
  const withOptions: SavedCalendar = { ...old, options: { filters: [{ action: 'exclude', status: 'CANCELLED' }], privacy: 'busy' } };

  it('reads calendars saved before overrides and history unchanged', () => {
    expect(parseCalendar(old)).toEqual(old);
    expect(parseCalendar(withOptions)).toEqual(withOptions);
    expect(JSON.stringify(parseCalendar(JSON.parse(JSON.stringify(withOptions))))).toBe(JSON.stringify(withOptions));
  });

  it('saves overrides (with their titles) and history, and reads them back', () => {
    const actions: OptionsAction[] = [
      { type: 'overrides', action: set(retitled) },
      { type: 'overrides', action: set(hiddenOne) },
      { type: 'setHistory', history: { keepDays: 30 } },
    ];
    const state = actions.reduce((s, action) => editorReducer(s, { type: 'options', action }), initialEditorState(parseCalendar(old)));
    const saved = savedCalendar(state, old, new Date(0));
    const read = parseCalendar(JSON.parse(JSON.stringify(saved)));
    expect(read?.options).toEqual({ filters: [], overrides: [retitled, hiddenOne], history: { keepDays: 30 } });
    expect(initialEditorState(read).options.overrides).toEqual([retitled, hiddenOne]);
  });

  it('drops stored overrides without the shape of one, and history out of range, keeping the rest', () => {
    const read = v.parse(CalendarOptionsSchema, {
      filters: [],
      overrides: [retitled, { uid: 'x' }, { summary: 'no uid' }, { uid: 'y', shiftMinutes: 'soon' }, { uid: 'z', hide: true, extra: 1 }, 'nonsense'],
      history: { keepDays: 400 },
    });
    expect(read).toEqual({ filters: [], overrides: [retitled, { uid: 'z', hide: true }] });
    expect(v.parse(CalendarOptionsSchema, { filters: [], overrides: 'all', history: { keepDays: 30, more: true } })).toEqual({
      filters: [],
      history: { keepDays: 30 },
    });
    expect(v.parse(StoredOverridesSchema, [])).toBeUndefined();
    // One per event, as the editor keeps them.
    expect(v.parse(StoredOverridesSchema, [hiddenOne, { uid: 'weekly@x', recurrenceId: '20240311t100000', note: 'n' }])).toEqual([hiddenOne]);
    // Limits are the checks' to tell, so nothing typed is lost on reading.
    const long = { uid: 'a', summary: 'x'.repeat(MAX_SUMMARY_CHARS + 1) };
    expect(v.parse(StoredOverridesSchema, [long])).toEqual([long]);
  });
});

describe('words for the list', () => {
  it('says what changed, of which event', () => {
    expect(describeOverride(retitled)).toBe('Team meeting: new title “Budget meeting”, 30 minutes later');
    expect(describeOverride(hiddenOne)).toBe('Weekly on Mon 11 Mar 2024, 10:00 (local time): this occurrence hidden');
    expect(describeOverride({ uid: 'abc@x', hide: true })).toBe('UID abc@x: hidden');
    expect(describeOverride({ uid: 'a', shiftMinutes: -1440, note: 'Room 2\nthis week', eventTitle: 'Trip' })).toBe(
      'Trip: 1 day earlier, note “Room 2 this week”',
    );
    const long = describeOverride({ uid: 'a', note: 'n'.repeat(100), eventTitle: 'A' });
    expect(long).toBe(`A: note “${'n'.repeat(59)}…”`);
  });

  it('says a shift in days, hours and minutes', () => {
    expect(describeShift(30)).toBe('30 minutes later');
    expect(describeShift(60)).toBe('1 hour later');
    expect(describeShift(90)).toBe('1 hour 30 minutes later');
    expect(describeShift(-2 * 1440 - 120)).toBe('2 days 2 hours earlier');
    expect(describeShift(1)).toBe('1 minute later');
  });
});

describe('overrides whose event is gone', () => {
  it('names the events by what was sent, so an undo since the answer marks the right rows', () => {
    const sent = [retitled, hiddenOne, { uid: 'c', hide: true as const }];
    const gone = goneKeys(sent, [1, 7]);
    expect([...gone]).toEqual([overrideKey(hiddenOne)]);
    // The first override undone meanwhile: the occurrence is still the one marked.
    const now = [hiddenOne, { uid: 'c', hide: true as const }];
    expect(now.map((o) => gone.has(overrideKey(o)))).toEqual([true, false]);
  });
});
