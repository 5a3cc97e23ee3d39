import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { defaultMapping, type SavedCalendar } from './calendar';
import { editorReducer, initialEditorState, publishRequest, savedCalendar } from './editor';
import {
  buildConfig,
  CalendarOptionsSchema,
  checkOptions,
  describeDecision,
  describeRule,
  emptyOptions,
  GOOGLE_LIMIT_BYTES,
  isEmptyOptions,
  keepsText,
  newCalendarOptions,
  newRule,
  occurrenceOf,
  occurrencesText,
  optionsReducer,
  problemFromServer,
  RULE_KINDS,
  ruleKind,
  suggestWindow,
  toggled,
  type CalendarOptions,
  RULE_FLAGS,
  WEEKDAYS,
  type OptionsAction,
} from './options';
import { parseCalendar } from './storage';

const run = (options: CalendarOptions, ...actions: OptionsAction[]) => actions.reduce(optionsReducer, options);

describe('rule editing', () => {
  it('toggles a weekday or flag into its place in the order', () => {
    expect(toggled(WEEKDAYS, ['SU', 'MO'], 'WE', true)).toEqual(['MO', 'WE', 'SU']);
    expect(toggled(WEEKDAYS, ['MO', 'WE'], 'MO', false)).toEqual(['WE']);
    expect(toggled(RULE_FLAGS, ['x', 'i'], 'm', true).join('')).toBe('imx');
    expect(toggled(RULE_FLAGS, ['i', 'm'], 'i', false).join('')).toBe('m');
  });

  it('adds a rule of every kind, each recognised as its kind', () => {
    const options = run(emptyOptions(), ...RULE_KINDS.map((kind): OptionsAction => ({ type: 'addRule', kind })));
    expect(options.filters.map(ruleKind)).toEqual([...RULE_KINDS]);
    expect(options.filters.every((r) => r.action === 'exclude')).toBe(true);
  });

  it('removes, reorders and replaces rules by position, ignoring moves past the ends', () => {
    const three = run(emptyOptions(), { type: 'addRule', kind: 'status' }, { type: 'addRule', kind: 'allDay' }, { type: 'addRule', kind: 'uid' });
    const moved = run(three, { type: 'moveRule', index: 2, delta: -1 });
    expect(moved.filters.map(ruleKind)).toEqual(['status', 'uid', 'allDay']);
    expect(run(three, { type: 'moveRule', index: 0, delta: -1 })).toBe(three);
    expect(run(three, { type: 'moveRule', index: 2, delta: 1 })).toBe(three);
    const removed = run(moved, { type: 'removeRule', index: 0 });
    expect(removed.filters.map(ruleKind)).toEqual(['uid', 'allDay']);
    const replaced = run(removed, { type: 'updateRule', index: 1, rule: { action: 'include', allDay: false } });
    expect(replaced.filters[1]).toEqual({ action: 'include', allDay: false });
    expect(run(removed, { type: 'updateRule', index: 5, rule: newRule('status') })).toBe(removed);
  });

  it('names the occurrence a sample stands for: an override, a series’ first, or none', () => {
    expect(occurrenceOf({ UID: 'a', 'RECURRENCE-ID': '20240105T100000Z', RRULE: 'x' })).toBe('20240105T100000Z');
    expect(occurrenceOf({ UID: 'a', RRULE: 'FREQ=WEEKLY', DTSTART: '20240101T090000' })).toBe('20240101T090000');
    expect(occurrenceOf({ UID: 'a', DTSTART: '20240101T090000' })).toBeUndefined();
    expect(checkOptions({ filters: [{ action: 'exclude', uid: 'a', recurrenceId: 'tomorrow' }] }).map((p) => p.path)).toEqual(['filters[0].recurrenceId']);
  });

  it('sets and clears the window and sets the other options', () => {
    const set = run(
      emptyOptions(),
      { type: 'setWindow', window: { pastDays: 7, futureDays: 90 } },
      { type: 'setTimezones', timezones: 'repair' },
      { type: 'setAlarms', alarms: { addMinutesBefore: 10 } },
      { type: 'setPrivacy', privacy: 'busy' },
    );
    expect(set).toEqual({ filters: [], window: { pastDays: 7, futureDays: 90 }, timezones: 'repair', alarms: { addMinutesBefore: 10 }, privacy: 'busy' });
    expect(run(set, { type: 'setWindow', window: undefined })).not.toHaveProperty('window');
  });
});

describe('the config sent to the server', () => {
  it('is the mapping alone when the options say nothing (the old behaviour)', () => {
    expect(buildConfig(defaultMapping(), emptyOptions())).toEqual({ mapping: defaultMapping() });
    expect(isEmptyOptions(emptyOptions())).toBe(true);
    expect(isEmptyOptions(newCalendarOptions())).toBe(false);
  });

  it('carries every option that is set and leaves empty optional parts out', () => {
    const options: CalendarOptions = {
      filters: [
        { action: 'exclude', field: 'SUMMARY', pattern: '^Canceled:', flags: '' },
        { action: 'exclude', uid: 'u', recurrenceId: '' },
        { action: 'include', duration: { maxMinutes: 60, minMinutes: undefined } },
      ],
      window: { pastDays: 30, futureDays: undefined },
      timezones: 'repair',
      alarms: 'strip',
      privacy: 'busy',
    };
    expect(JSON.parse(JSON.stringify(buildConfig(defaultMapping(), options)))).toEqual({
      mapping: defaultMapping(),
      filters: [
        { action: 'exclude', field: 'SUMMARY', pattern: '^Canceled:' },
        { action: 'exclude', uid: 'u' },
        { action: 'include', duration: { maxMinutes: 60 } },
      ],
      window: { pastDays: 30 },
      timezones: 'repair',
      alarms: 'strip',
      privacy: 'busy',
    });
  });

  it('goes beside id, name and url in Build & Host, and new calendars repair time zones and judge each occurrence', () => {
    const fresh = initialEditorState(null, 'https://x/a.ics');
    expect(fresh.options).toEqual({ filters: [], timezones: 'repair', occurrences: 'each' });
    const state = editorReducer(fresh, { type: 'options', action: { type: 'addRule', kind: 'status' } });
    expect(publishRequest(state, { id: 'a', name: 'A' })).toEqual({
      id: 'a',
      name: 'A',
      url: 'https://x/a.ics',
      mapping: defaultMapping(),
      filters: [{ action: 'exclude', status: 'CANCELLED' }],
      timezones: 'repair',
      occurrences: 'each',
    });
  });
});

describe('stored options', () => {
  const old: SavedCalendar = { id: 'old', name: 'Old', url: 'https://x/o.ics', mapping: defaultMapping(), lastBuiltAt: '' };

  it('an entry saved before options existed stays valid and keeps its behaviour', () => {
    expect(parseCalendar(old)).toEqual(old);
    const state = initialEditorState(parseCalendar(old));
    expect(state.options).toEqual(emptyOptions());
    expect(savedCalendar(state, old, new Date(0))).not.toHaveProperty('options');
  });

  it('options are saved with the calendar and read back', () => {
    const added = editorReducer(initialEditorState(null, old.url), { type: 'options', action: { type: 'addRule', kind: 'uid' } });
    const state = editorReducer(added, { type: 'options', action: { type: 'updateRule', index: 0, rule: { action: 'exclude', uid: 'u1' } } });
    const saved = savedCalendar(state, old, new Date(0));
    expect(parseCalendar(JSON.parse(JSON.stringify(saved)))?.options).toEqual({
      filters: [{ action: 'exclude', uid: 'u1' }],
      timezones: 'repair',
      occurrences: 'each',
    });
  });

  it('drops rules without the shape of one and options out of range, keeping the rest', () => {
    const read = v.parse(CalendarOptionsSchema, {
      filters: [{ action: 'exclude', status: 'CANCELLED' }, { action: 'maybe', status: 'X' }, { action: 'exclude' }, 'x'],
      window: { pastDays: -1 },
      timezones: 'fix',
      alarms: { addMinutesBefore: 15 },
      privacy: 'busy',
    });
    expect(read).toEqual({ filters: [{ action: 'exclude', status: 'CANCELLED' }], alarms: { addMinutesBefore: 15 }, privacy: 'busy' });
    expect(parseCalendar({ ...old, options: 'nonsense' })).toEqual(old);
  });
});

describe("the editor's own checks", () => {
  it('names each problem by the path the server uses', () => {
    const problems = checkOptions({
      filters: [
        { action: 'exclude', field: 'SUMMARY', pattern: '' },
        { action: 'exclude', weekdays: [] },
        { action: 'exclude', timeOfDay: { from: '09:00', to: '09:00' } },
        { action: 'exclude', timeOfDay: { from: '22:00', to: '06:00' } },
        { action: 'exclude', duration: { minMinutes: 90, maxMinutes: 30 } },
        { action: 'exclude', uid: ' ' },
        { action: 'exclude', duration: {} },
        { action: 'exclude', status: 'CANCELLED' },
      ],
      window: { pastDays: 1.5, futureDays: 40000 },
      alarms: { addMinutesBefore: NaN },
    });
    expect(problems.map((p) => p.path)).toEqual([
      'filters[0].pattern',
      'filters[1].weekdays',
      'filters[2].timeOfDay',
      'filters[4].duration',
      'filters[5].uid',
      'filters[6].duration',
      'window.pastDays',
      'window.futureDays',
      'alarms.addMinutesBefore',
    ]);
    expect(checkOptions(newCalendarOptions())).toEqual([]);
  });

  it("places the server's failure at the option its field names", () => {
    expect(problemFromServer({ message: 'the pattern does not compile: unclosed group', field: 'filters[1].pattern' })).toEqual({
      path: 'filters[1].pattern',
      message: 'the pattern does not compile: unclosed group',
    });
    expect(problemFromServer({ message: 'at most 36500', field: 'window.pastDays' })).toEqual({ path: 'window.pastDays', message: 'at most 36500' });
    expect(problemFromServer({ message: 'at most 60', field: 'alarms' })).toEqual({ path: 'alarms', message: 'at most 60' });
    // Not about an option: the network, the feed address, a template.
    expect(problemFromServer({ message: 'the server could not be reached', field: null })).toBeNull();
    expect(problemFromServer({ message: 'the feed address is empty', field: 'url' })).toBeNull();
    expect(problemFromServer({ message: 'bad token', field: 'mapping.SUMMARY' })).toBeNull();
    // Words are never searched for a path.
    expect(problemFromServer({ message: 'filters[1].pattern: unclosed group', field: null })).toBeNull();
  });
});

describe('words and the suggested window', () => {
  it('describes rules and decisions', () => {
    expect(describeRule({ action: 'exclude', field: 'SUMMARY', pattern: '^Canceled:', flags: 'i' })).toBe('exclude SUMMARY ~ /^Canceled:/i');
    expect(describeRule({ action: 'include', weekdays: ['MO', 'FR'] })).toBe('include on Monday, Friday');
    expect(describeRule({ action: 'exclude', weekdays: ['SA', 'SU'] })).toBe('exclude on Saturday, Sunday');
    expect(describeRule({ action: 'include', weekdays: ['MO', 'TU', 'WE', 'TH', 'FR'] })).toBe('include on Monday to Friday');
    expect(describeRule({ action: 'exclude', weekdays: ['MO', 'WE', 'FR', 'SA', 'SU'] })).toBe('exclude on Monday, Wednesday, Friday to Sunday');
    // A new weekday rule chooses nothing itself.
    expect(newRule('weekdays')).toEqual({ action: 'exclude', weekdays: [] });
    expect(describeDecision({ kept: true })).toBe('Kept in the hosted feed');
    expect(describeDecision({ kept: false, reason: 'window' })).toBe('Dropped: window');
    expect(describeDecision(undefined)).toBe('');
    expect(keepsText(1200, 1500)).toBe('keeps 1,200 of 1,500 events');
    expect(keepsText(0, 1)).toBe('keeps 0 of 1 event');
  });

  it('suggests no window under the limit, a month back and a year ahead first, then a smaller one', () => {
    expect(suggestWindow(GOOGLE_LIMIT_BYTES, undefined)).toBeNull();
    expect(suggestWindow(GOOGLE_LIMIT_BYTES + 1, undefined)).toEqual({ pastDays: 30, futureDays: 365 });
    const smaller = suggestWindow(GOOGLE_LIMIT_BYTES * 3, { pastDays: 30, futureDays: 365 });
    expect(smaller).toEqual({ pastDays: 9, futureDays: 109 });
    // An open side gets the default's share, never less than a day.
    expect(suggestWindow(GOOGLE_LIMIT_BYTES * 1000, { futureDays: 10 })).toEqual({ pastDays: 1, futureDays: 1 });
  });
});

describe('occurrences judged one by one', () => {
  it('is on for a new calendar and off (absent) for one saved before', () => {
    expect(newCalendarOptions().occurrences).toBe('each');
    expect(emptyOptions().occurrences).toBeUndefined();
    expect(buildConfig(defaultMapping(), newCalendarOptions()).occurrences).toBe('each');
    expect('occurrences' in buildConfig(defaultMapping(), emptyOptions())).toBe(false);
  });

  it('is switched by the reducer, the key leaving when off', () => {
    const on = optionsReducer(emptyOptions(), { type: 'setEachOccurrence', each: true });
    expect(on.occurrences).toBe('each');
    const off = optionsReducer(on, { type: 'setEachOccurrence', each: false });
    expect('occurrences' in off).toBe(false);
  });

  it('says how many occurrences a kept series loses, or that it is kept whole', () => {
    expect(describeDecision({ kept: true, droppedOccurrences: 4 })).toBe('Kept in the hosted feed without 4 occurrences the filters drop');
    expect(describeDecision({ kept: true, droppedOccurrences: 1 })).toBe('Kept in the hosted feed without 1 occurrence the filters drop');
    expect(describeDecision({ kept: true, keptWhole: true, droppedOccurrences: 9 })).toBe(
      'Kept whole in the hosted feed: too many of its occurrences to judge one by one',
    );
    expect(describeDecision({ kept: true })).toBe('Kept in the hosted feed');
  });

  it('says why a series is kept whole, with the way out', () => {
    expect(describeDecision({ kept: true, keptWhole: true, keptWholeBecause: 'endless' })).toBe(
      'Kept whole in the hosted feed: it repeats without end, so the occurrences your rules drop cannot all be removed. Set “Days ahead” under “Only keep events near today” to end it there.',
    );
    expect(describeDecision({ kept: true, keptWhole: true, keptWholeBecause: 'tooMany' })).toMatch(/more of its occurrences than can be removed one by one/);
    expect(describeDecision({ kept: true, keptWhole: true, keptWholeBecause: 'unfollowed' })).toMatch(/could not be followed/);
  });

  it('counts occurrences in words', () => {
    expect(occurrencesText({ count: 1234, from: '2026-10-27', to: '2027-11-26', atLeast: false })).toBe('1,234 occurrences from 2026-10-27 to 2027-11-26');
    expect(occurrencesText({ count: 1, from: 'a', to: 'b', atLeast: true })).toBe('at least 1 occurrence from a to b');
  });

  it('reads the stored key, and nothing else in its place', () => {
    expect(v.parse(CalendarOptionsSchema, { filters: [], occurrences: 'each' }).occurrences).toBe('each');
    expect('occurrences' in v.parse(CalendarOptionsSchema, { filters: [], occurrences: 'sometimes' })).toBe(false);
  });
});

describe('properties and uids in the options', () => {
  it('are absent until set, and leave the config as before', () => {
    const config = buildConfig(defaultMapping(), emptyOptions());
    expect('properties' in config).toBe(false);
    expect('uids' in config).toBe(false);
  });

  it('are set and removed by the reducer, and sent as the server takes them', () => {
    let options = optionsReducer(emptyOptions(), { type: 'setProperties', properties: { TRANSP: 'TRANSPARENT', COLOR: 'teal' } });
    options = optionsReducer(options, { type: 'setUids', uids: 'content' });
    expect(buildConfig(defaultMapping(), options)).toEqual({
      mapping: defaultMapping(),
      properties: { TRANSP: 'TRANSPARENT', COLOR: 'teal' },
      uids: 'content',
    });
    options = optionsReducer(options, { type: 'setProperties', properties: {} });
    options = optionsReducer(options, { type: 'setUids', uids: undefined });
    expect(isEmptyOptions(options)).toBe(true);
  });

  it('are stored and read back, a bad value read as absent', () => {
    const stored = v.parse(CalendarOptionsSchema, { filters: [], properties: { CLASS: 'PRIVATE' }, uids: 'content' });
    expect(stored).toEqual({ filters: [], properties: { CLASS: 'PRIVATE' }, uids: 'content' });
    expect(v.parse(CalendarOptionsSchema, { filters: [], properties: 5, uids: 'other' })).toEqual({ filters: [] });
  });

  it('are checked, and the server’s refusals at their paths are option problems', () => {
    const options = optionsReducer(emptyOptions(), { type: 'setProperties', properties: { COLOR: 'reddish' } });
    expect(checkOptions(options).map((p) => p.path)).toEqual(['properties.COLOR']);
    expect(problemFromServer({ field: 'properties.X-COLOR', message: 'not a property' })).toEqual({ path: 'properties.X-COLOR', message: 'not a property' });
  });
});
