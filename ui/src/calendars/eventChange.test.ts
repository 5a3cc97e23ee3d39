import { describe, expect, it } from 'vitest';
import {
  changesOn,
  checkDraft,
  draftFor,
  draftShiftMinutes,
  editedFields,
  editsOn,
  hasRoom,
  hideOverride,
  maxAmount,
  NOTHING_TEXT,
  overrideFromDraft,
  replacesOne,
  shiftParts,
  targetsOf,
  unitsFor,
  type ChangeDraft,
  type EventTargets,
} from './eventChange';
import { MAX_OVERRIDES, MAX_SHIFT_MINUTES, type EventOverride } from './overrides';

const single = { UID: 'team@x', SUMMARY: 'Team meeting', DTSTART: '20250102T100000Z' };
const series = { UID: 'weekly@x', SUMMARY: 'Weekly', DTSTART: '20240304T100000', RRULE: 'FREQ=WEEKLY' };
const moved = { UID: 'weekly@x', SUMMARY: 'Weekly (moved)', DTSTART: '20240311T140000', 'RECURRENCE-ID': '20240311T100000' };
const allDay = { UID: 'trip@x', SUMMARY: 'Trip', DTSTART: '20250301' };

const targets = (event: Record<string, string>): EventTargets => {
  const t = targetsOf(event);
  if (!t) throw new Error('no targets');
  return t;
};
const blank = (t: EventTargets): ChangeDraft => draftFor(t, []);

describe('which event a change names', () => {
  it('a single event: itself, for a change and for hiding', () => {
    expect(targets(single)).toEqual({
      title: 'Team meeting',
      change: { uid: 'team@x' },
      hideOne: { uid: 'team@x' },
      recurring: false,
      allDay: false,
    });
  });

  it('a series: changes go to all of it, hiding names the occurrence shown (its first)', () => {
    expect(targets(series)).toMatchObject({
      change: { uid: 'weekly@x' },
      hideOne: { uid: 'weekly@x', recurrenceId: '20240304T100000' },
      recurring: true,
      occurrence: 'Mon 4 Mar 2024, 10:00 (local time)',
    });
  });

  it('an occurrence listed on its own: both name it', () => {
    expect(targets(moved)).toMatchObject({
      change: { uid: 'weekly@x', recurrenceId: '20240311T100000' },
      hideOne: { uid: 'weekly@x', recurrenceId: '20240311T100000' },
      recurring: true,
    });
  });

  it('an all-day event moves by days; an event without a UID cannot be named', () => {
    expect(targets(allDay).allDay).toBe(true);
    expect(unitsFor(targets(allDay))).toEqual(['days']);
    expect(unitsFor(targets(single))).toEqual(['minutes', 'hours', 'days']);
    expect(targetsOf({ SUMMARY: 'No UID' })).toBeNull();
    expect(targetsOf({ UID: '  ' })).toBeNull();
  });
});

describe('the form', () => {
  it('reads a change typed into it as an override, with the event’s title kept for the list', () => {
    const t = targets(single);
    const draft: ChangeDraft = { ...blank(t), summary: ' Budget meeting ', amount: 30, unit: 'minutes', note: 'Bring numbers\n' };
    expect(overrideFromDraft(t, draft)).toEqual({
      uid: 'team@x',
      summary: 'Budget meeting',
      shiftMinutes: 30,
      note: 'Bring numbers',
      eventTitle: 'Team meeting',
    });
    expect(overrideFromDraft(t, { ...blank(t), amount: 2, unit: 'hours', direction: 'earlier' })).toEqual({
      uid: 'team@x',
      shiftMinutes: -120,
      eventTitle: 'Team meeting',
    });
  });

  it('hides the occurrence shown or the whole series', () => {
    const t = targets(series);
    expect(overrideFromDraft(t, { ...blank(t), choice: 'hideOne', summary: 'ignored' })).toEqual({
      uid: 'weekly@x',
      recurrenceId: '20240304T100000',
      hide: true,
      eventTitle: 'Weekly',
    });
    expect(overrideFromDraft(t, { ...blank(t), choice: 'hideSeries' })).toEqual({ uid: 'weekly@x', hide: true, eventTitle: 'Weekly' });
  });

  it('refuses a form that changes nothing, and one past the server’s limits', () => {
    const t = targets(single);
    expect(checkDraft(blank(t))).toEqual({ form: NOTHING_TEXT });
    expect(overrideFromDraft(t, blank(t))).toBeNull();
    expect(checkDraft({ ...blank(t), amount: 0 })).toEqual({ form: NOTHING_TEXT });
    const problems = checkDraft({ ...blank(t), summary: 'x'.repeat(501), note: 'bell \u0007', amount: maxAmount('hours') + 1, unit: 'hours' });
    expect(Object.keys(problems).sort()).toEqual(['amount', 'note', 'summary']);
    // The box refusing what was typed counts, whatever value it held before.
    expect(checkDraft({ ...blank(t), summary: 'X', amount: 5 }, true)).toHaveProperty('amount');
    expect(checkDraft({ ...blank(t), choice: 'hideOne' }, true)).toEqual({});
  });

  it('keeps shifts within a year in every unit', () => {
    expect(maxAmount('minutes')).toBe(MAX_SHIFT_MINUTES);
    expect(maxAmount('hours')).toBe(8784);
    expect(maxAmount('days')).toBe(366);
    expect(draftShiftMinutes({ amount: 366, unit: 'days', direction: 'earlier' })).toBe(-MAX_SHIFT_MINUTES);
  });

  it('shows a shift in the largest unit that holds it whole', () => {
    expect(shiftParts(undefined, false)).toEqual({ amount: undefined, unit: 'minutes', direction: 'later' });
    expect(shiftParts(90, false)).toEqual({ amount: 90, unit: 'minutes', direction: 'later' });
    expect(shiftParts(-120, false)).toEqual({ amount: 2, unit: 'hours', direction: 'earlier' });
    expect(shiftParts(2880, false)).toEqual({ amount: 2, unit: 'days', direction: 'later' });
    expect(shiftParts(2880, true)).toEqual({ amount: 2, unit: 'days', direction: 'later' });
    expect(shiftParts(undefined, true)).toEqual({ amount: undefined, unit: 'days', direction: 'later' });
  });
});

describe('the form as the last change left it', () => {
  const changed: EventOverride = { uid: 'team@x', summary: 'Budget meeting', shiftMinutes: -60, note: 'n', eventTitle: 'Team meeting' };

  it('opens on the event’s own change, and says saving replaces it', () => {
    const t = targets(single);
    const draft = draftFor(t, [changed]);
    expect(draft).toEqual({ choice: 'change', summary: 'Budget meeting', note: 'n', amount: 1, unit: 'hours', direction: 'earlier' });
    expect(replacesOne(t, draft, [changed])).toBe(true);
    expect(replacesOne(t, draft, [])).toBe(false);
  });

  it('opens on hiding when the occurrence or the series is hidden', () => {
    const t = targets(series);
    expect(draftFor(t, [{ uid: 'weekly@x', recurrenceId: '20240304T100000', hide: true }]).choice).toBe('hideOne');
    expect(draftFor(t, [{ uid: 'weekly@x', hide: true }]).choice).toBe('hideSeries');
    // An occurrence hidden elsewhere in the series is another event.
    expect(draftFor(t, [{ uid: 'weekly@x', recurrenceId: '20240318T100000', hide: true }]).choice).toBe('change');
    expect(draftFor(targets(single), [{ uid: 'team@x', hide: true }]).choice).toBe('hideOne');
  });
});

describe('a full list', () => {
  it('takes no new event past the server’s limit, but still a change to one it has', () => {
    const t = targets(single);
    const full = Array.from({ length: MAX_OVERRIDES }, (_, i): EventOverride => ({ uid: `e${i}`, hide: true }));
    expect(hasRoom(t, blank(t), full.slice(1))).toBe(true);
    expect(hasRoom(t, blank(t), full)).toBe(false);
    const withIt = [...full.slice(1), { uid: 'team@x', summary: 'X' }];
    expect(hasRoom(t, blank(t), withIt)).toBe(true);
  });
});

describe('what the sample shown has been given', () => {
  it('says its own change, its occurrence’s and its series’', () => {
    expect(changesOn(single, [])).toBe('');
    expect(changesOn(single, [{ uid: 'team@x', summary: 'Budget meeting', shiftMinutes: 30 }])).toBe('new title “Budget meeting”, 30 minutes later');
    expect(changesOn(series, [{ uid: 'weekly@x', hide: true }])).toBe('the whole series hidden');
    expect(
      changesOn(series, [
        { uid: 'weekly@x', note: 'n' },
        { uid: 'weekly@x', recurrenceId: '20240304T100000', hide: true },
      ]),
    ).toBe('note “n”; this occurrence hidden');
    expect(changesOn(moved, [{ uid: 'other@x', hide: true }])).toBe('');
    expect(changesOn({ SUMMARY: 'No UID' }, [{ uid: 'x', hide: true }])).toBe('');
  });
});

describe('hiding from the sample', () => {
  it('hides a single event, or an occurrence or the whole series of a recurring one, as a change by hand', () => {
    expect(hideOverride(targets(single), 'one')).toEqual({ uid: 'team@x', hide: true, eventTitle: 'Team meeting' });
    // A single event has no series to hide.
    expect(hideOverride(targets(single), 'series')).toBeNull();
    expect(hideOverride(targets(series), 'one')).toEqual({ uid: 'weekly@x', recurrenceId: '20240304T100000', hide: true, eventTitle: 'Weekly' });
    expect(hideOverride(targets(series), 'series')).toEqual({ uid: 'weekly@x', hide: true, eventTitle: 'Weekly' });
  });
});

describe('the final event in the preview', () => {
  const fields = { SUMMARY: '[Lab] Team meeting', DESCRIPTION: 'Agenda\n', LOCATION: 'Room 4' };

  it("takes the edits the engine makes to the sample: its own and its series', not hiding and not other events'", () => {
    const overrides: EventOverride[] = [
      { uid: 'weekly@x', summary: 'Weekly sync' },
      { uid: 'weekly@x', recurrenceId: '20240311t100000', note: 'Moved for the holiday' },
      { uid: 'weekly@x', recurrenceId: '20240318T100000', summary: 'Other week' },
      { uid: 'weekly@x', recurrenceId: '20240311T100000', hide: true },
      { uid: 'team@x', summary: 'Not this one' },
    ];
    expect(editsOn(moved, overrides)).toEqual([overrides[0], overrides[1]]);
    expect(editsOn(series, overrides)).toEqual([overrides[0]]);
    expect(editsOn({ SUMMARY: 'no uid' }, overrides)).toEqual([]);
  });

  it('replaces the whole title (a prefix with it) and puts a note below the description after an empty line', () => {
    expect(editedFields(fields, [{ uid: 'a', summary: 'Budget meeting' }])).toEqual({ ...fields, SUMMARY: 'Budget meeting' });
    expect(editedFields(fields, [{ uid: 'a', note: 'Bring slides' }]).DESCRIPTION).toBe('Agenda\n\nBring slides');
    expect(editedFields({ ...fields, DESCRIPTION: '  ' }, [{ uid: 'a', note: 'Bring slides' }]).DESCRIPTION).toBe('Bring slides');
    expect(editedFields(fields, [{ uid: 'a', shiftMinutes: 30 }])).toEqual(fields);
  });
});
