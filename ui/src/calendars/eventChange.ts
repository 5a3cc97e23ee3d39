// What "Change this event" can do to the sample shown, and the dialog's form read into an
// override (overrides.ts). Pure: which event a change names (an occurrence listed on its own, else
// the event or its whole series), the form as the last change left it, a shift in minutes, hours
// or days, and the form's checks with the server's limits.
import { occurrenceOf } from './options';
import { describeChange, findOverride, MAX_OVERRIDES, MAX_SHIFT_MINUTES, noteProblem, overrideKey, summaryProblem, type EventOverride } from './overrides';
import { readableIcsDate } from './icsDate';
import type { SampleEvent } from './samples';

interface Target {
  uid: string;
  recurrenceId?: string;
}

/** The events a change of one sample can name. */
export interface EventTargets {
  /** The sample's own title (its SUMMARY in the feed). */
  title: string;
  /** What a new title, a shift or a note changes: an occurrence listed on its own, else the event (a series: all of it). */
  change: Target;
  /** What "hide this" hides: the occurrence shown (a series' first), or the event. */
  hideOne: Target;
  /** The sample is part of a series: all of it can be hidden too. */
  recurring: boolean;
  /** The occurrence hideOne names, in words. */
  occurrence?: string;
  /** An all-day event moves by whole days only. */
  allDay: boolean;
}

const target = (uid: string, recurrenceId: string | undefined): Target => (recurrenceId ? { uid, recurrenceId } : { uid });

/** What a change of `event` names; null for an event without a UID, which nothing can name. */
export function targetsOf(event: SampleEvent): EventTargets | null {
  const uid = event.UID?.trim() ?? '';
  if (uid === '') return null;
  const own = event['RECURRENCE-ID']?.trim() || undefined;
  const one = occurrenceOf(event);
  const recurring = own !== undefined || Boolean(event.RRULE || event.RDATE);
  return {
    title: event.SUMMARY?.trim() ?? '',
    change: target(uid, own),
    hideOne: target(uid, one),
    recurring,
    ...(one ? { occurrence: readableIcsDate(one, event.TZID) ?? one } : {}),
    allDay: /^\d{8}$/.test(event.DTSTART?.trim() ?? ''),
  };
}

// --- The form -----------------------------------------------------------------------------------

export type ChangeChoice = 'change' | 'hideOne' | 'hideSeries';
export const SHIFT_UNITS = ['minutes', 'hours', 'days'] as const;
export type ShiftUnit = (typeof SHIFT_UNITS)[number];
export const UNIT_MINUTES: Record<ShiftUnit, number> = { minutes: 1, hours: 60, days: 1440 };
export type ShiftDirection = 'later' | 'earlier';

export interface ChangeDraft {
  choice: ChangeChoice;
  summary: string;
  /** The shift's size in `unit`s; undefined: the box is empty (no shift). */
  amount: number | undefined;
  unit: ShiftUnit;
  direction: ShiftDirection;
  note: string;
}

/** The units a shift of this event can take: whole days for an all-day event. */
export const unitsFor = (targets: EventTargets): readonly ShiftUnit[] => (targets.allDay ? ['days'] : SHIFT_UNITS);

/** The largest shift in `unit`s. */
export const maxAmount = (unit: ShiftUnit) => Math.floor(MAX_SHIFT_MINUTES / UNIT_MINUTES[unit]);

/** A shift in minutes as the form shows it: in the largest unit that holds it whole. */
export function shiftParts(minutes: number | undefined, allDay: boolean): Pick<ChangeDraft, 'amount' | 'unit' | 'direction'> {
  const direction: ShiftDirection = (minutes ?? 0) < 0 ? 'earlier' : 'later';
  const size = Math.abs(minutes ?? 0);
  if (allDay) return { amount: size ? Math.round(size / 1440) : undefined, unit: 'days', direction };
  if (size === 0) return { amount: undefined, unit: 'minutes', direction };
  const unit: ShiftUnit = size % 1440 === 0 ? 'days' : size % 60 === 0 ? 'hours' : 'minutes';
  return { amount: size / UNIT_MINUTES[unit], unit, direction };
}

/** The form's shift in minutes (negative: earlier). */
export function draftShiftMinutes(draft: Pick<ChangeDraft, 'amount' | 'unit' | 'direction'>): number {
  const minutes = (draft.amount ?? 0) * UNIT_MINUTES[draft.unit];
  return draft.direction === 'earlier' ? -minutes : minutes;
}

const hides = (overrides: readonly EventOverride[], t: Target) => overrides[findOverride(overrides, t)]?.hide === true;

/** The form as it opens: what the event's own override says, else a change with nothing in it yet. */
export function draftFor(targets: EventTargets, overrides: readonly EventOverride[]): ChangeDraft {
  const blank: ChangeDraft = { choice: 'change', summary: '', note: '', ...shiftParts(undefined, targets.allDay) };
  if (hides(overrides, targets.hideOne)) return { ...blank, choice: 'hideOne' };
  if (targets.recurring && hides(overrides, { uid: targets.change.uid })) return { ...blank, choice: 'hideSeries' };
  const changed = overrides[findOverride(overrides, targets.change)];
  if (!changed || changed.hide) return blank;
  return { ...blank, summary: changed.summary ?? '', note: changed.note ?? '', ...shiftParts(changed.shiftMinutes, targets.allDay) };
}

/** Whether the calendar can take the form's override: a new event needs room under the limit; a replaced one does not. */
export function hasRoom(targets: EventTargets, draft: ChangeDraft, overrides: readonly EventOverride[]): boolean {
  return overrides.length < MAX_OVERRIDES || replacesOne(targets, draft, overrides);
}

export const FULL_TEXT = `This calendar has ${MAX_OVERRIDES} events changed by hand, the most it can have: undo one in “Changed by hand” to change another.`;

/** Whether saving replaces a change made before to the event the form's choice names. */
export function replacesOne(targets: EventTargets, draft: ChangeDraft, overrides: readonly EventOverride[]): boolean {
  return findOverride(overrides, chosenTarget(targets, draft.choice)) >= 0;
}

function chosenTarget(targets: EventTargets, choice: ChangeChoice): Target {
  if (choice === 'hideOne') return targets.hideOne;
  if (choice === 'hideSeries') return { uid: targets.change.uid };
  return targets.change;
}

export interface DraftProblems {
  summary?: string;
  amount?: string;
  note?: string;
  /** Nothing to change: the form as a whole. */
  form?: string;
}

export const NOTHING_TEXT = 'Nothing would change: give a new title, a shift in time or a note, or choose to hide it.';

/** The form's problems; `amountRefused`: the shift's box holds something it refused. */
export function checkDraft(draft: ChangeDraft, amountRefused = false): DraftProblems {
  if (draft.choice !== 'change') return {};
  const problems: DraftProblems = {};
  const summary = summaryProblem(draft.summary.trim());
  if (summary) problems.summary = summary;
  const note = noteProblem(draft.note.trimEnd());
  if (note) problems.note = note;
  const max = maxAmount(draft.unit);
  const amount = draft.amount;
  if (amountRefused || (amount !== undefined && !(Number.isInteger(amount) && amount >= 0 && amount <= max))) {
    problems.amount = amountText(draft.unit);
  }
  if (Object.keys(problems).length === 0 && draft.summary.trim() === '' && draftShiftMinutes(draft) === 0 && draft.note.trim() === '') {
    problems.form = NOTHING_TEXT;
  }
  return problems;
}

/** What a refused shift is told. */
export const amountText = (unit: ShiftUnit) => `whole ${unit} from 0 to ${maxAmount(unit)} (a year at most)`;

export const hasProblems = (problems: DraftProblems) => Object.keys(problems).length > 0;

/** The override the form makes, or null while it has problems. */
export function overrideFromDraft(targets: EventTargets, draft: ChangeDraft, amountRefused = false): EventOverride | null {
  if (hasProblems(checkDraft(draft, amountRefused))) return null;
  const eventTitle = targets.title ? { eventTitle: targets.title } : {};
  const chosen = chosenTarget(targets, draft.choice);
  if (draft.choice !== 'change') return { ...chosen, hide: true, ...eventTitle };
  const summary = draft.summary.trim();
  const note = draft.note.trimEnd();
  const shiftMinutes = draftShiftMinutes(draft);
  return {
    ...chosen,
    ...(summary ? { summary } : {}),
    ...(shiftMinutes ? { shiftMinutes } : {}),
    ...(note.trim() ? { note } : {}),
    ...eventTitle,
  };
}

// --- Hiding from the sample ---------------------------------------------------------------------

/**
 * The override "Hide this event" (`one`) or "Hide this series" (`series`) beside the sample makes:
 * the same as the dialog's hiding, so every hide is a change by hand, in one list.
 */
export function hideOverride(targets: EventTargets, what: 'one' | 'series'): EventOverride | null {
  if (what === 'series' && !targets.recurring) return null;
  const blank: ChangeDraft = { choice: what === 'one' ? 'hideOne' : 'hideSeries', summary: '', note: '', ...shiftParts(undefined, targets.allDay) };
  return overrideFromDraft(targets, blank);
}

// --- The sample's own changes -------------------------------------------------------------------

/**
 * The changes by hand the engine makes to the sample's lines (crates/engine/src/remap/overrides.rs):
 * its own and its whole series', in the list's order; hiding is not one of them (the decision says it).
 */
export function editsOn(event: SampleEvent, overrides: readonly EventOverride[]): EventOverride[] {
  const uid = event.UID?.trim() ?? '';
  if (uid === '') return [];
  const own = event['RECURRENCE-ID']?.trim().toUpperCase() ?? '';
  return overrides.filter((o) => !o.hide && o.uid.trim() === uid && (!o.recurrenceId || o.recurrenceId.trim().toUpperCase() === own));
}

/**
 * The preview's fields as subscribers get them after `edits`, by the engine's rule: a new title
 * replaces the whole mapped title (a feed's prefix with it), a note goes below the description
 * after an empty line. Times move too; the preview says so in words.
 */
export function editedFields<F extends Partial<Record<string, string>>>(fields: F, edits: readonly EventOverride[]): F {
  const out: Partial<Record<string, string>> = { ...fields };
  for (const edit of edits) {
    if (edit.summary) out.SUMMARY = edit.summary;
    if (edit.note) {
      const base = fields.DESCRIPTION ?? '';
      out.DESCRIPTION = base.trim() === '' ? edit.note : `${base.trimEnd()}\n\n${edit.note}`;
    }
  }
  return out as F;
}

/**
 * What the overrides do to the sample shown, in words ('new title “Budget meeting”, 30 minutes
 * later'), or '' when none names it: its own, its occurrence's and its whole series'.
 */
export function changesOn(event: SampleEvent, overrides: readonly EventOverride[]): string {
  const targets = targetsOf(event);
  if (!targets || overrides.length === 0) return '';
  const keys = [targets.change, targets.hideOne, { uid: targets.change.uid }].map(overrideKey);
  const seen = new Set<string>();
  const words: string[] = [];
  for (const key of keys) {
    if (seen.has(key)) continue;
    seen.add(key);
    const o = overrides.find((x) => overrideKey(x) === key);
    if (!o) continue;
    const series = targets.recurring && !o.recurrenceId;
    words.push(o.hide && series ? 'the whole series hidden' : describeChange(o));
  }
  return words.join('; ');
}
