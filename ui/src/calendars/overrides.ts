// Events changed by hand (README "Events changed by hand"): one event, or one occurrence of a
// series, hidden, retitled, moved in time or given a note; the server applies them after the
// mapping. Pure: the shape and its stored schema, adding or replacing one per event, undoing, the
// server's limits checked before asking it, the words for the "Changed by hand" list, and what is
// sent. Which event a sample's change names is eventChange.ts's.
import * as v from 'valibot';
import { listOf } from '../lib/schema';
import { readableIcsDate } from './icsDate';

/** The server's limits (crates/engine/src/config/overrides.rs). */
export const MAX_OVERRIDES = 500;
export const MAX_SUMMARY_CHARS = 500;
export const MAX_NOTE_CHARS = 4000;
/** A year either way (366 days). */
export const MAX_SHIFT_MINUTES = 366 * 24 * 60;
/** The server's bound on any UID it is given (filters and overrides alike). */
export const MAX_UID_BYTES = 1024;

/**
 * One event changed by hand: hidden (`hide`, nothing else), or given any of a new title, a shift
 * and a note. `recurrenceId` names one occurrence of a series by its RECURRENCE-ID as written.
 */
export interface EventOverride {
  uid: string;
  recurrenceId?: string;
  hide?: true;
  summary?: string;
  /** Minutes later (negative: earlier); an all-day event moves by the whole days in it. */
  shiftMinutes?: number;
  note?: string;
  /** The event's title when it was changed, for the list once the feed has it no more. Kept in this browser, never sent. */
  eventTitle?: string;
}

/** An override as the server takes it. */
export type WireOverride = Omit<EventOverride, 'eventTitle'>;

/** A problem at the config path the server would name (`overrides[2].summary`). */
export interface OverrideProblem {
  path: string;
  message: string;
}

// --- Which event --------------------------------------------------------------------------------

/** The event an override names, as the server compares them: the UID trimmed, the RECURRENCE-ID trimmed and in upper case. */
export function overrideKey(target: { uid: string; recurrenceId?: string }): string {
  return `${target.uid.trim()}\n${target.recurrenceId?.trim().toUpperCase() ?? ''}`;
}

/** The position of the override naming the same event as `target`, or -1. */
export function findOverride(overrides: readonly EventOverride[], target: { uid: string; recurrenceId?: string }): number {
  const key = overrideKey(target);
  return overrides.findIndex((o) => overrideKey(o) === key);
}

// --- Editing ------------------------------------------------------------------------------------

/**
 * An override as kept: UID and RECURRENCE-ID trimmed, a blank title or note and a zero shift left
 * out (they change nothing), and a hidden event with nothing else.
 */
export function cleanOverride(o: EventOverride): EventOverride {
  const uid = o.uid.trim();
  const recurrenceId = o.recurrenceId?.trim();
  const target = { uid, ...(recurrenceId ? { recurrenceId } : {}) };
  const eventTitle = o.eventTitle?.trim() ? { eventTitle: o.eventTitle.trim() } : {};
  if (o.hide) return { ...target, hide: true, ...eventTitle };
  const summary = o.summary?.trim();
  // Trailing white space in a note shows as empty lines under the description.
  const note = o.note?.trimEnd();
  return {
    ...target,
    ...(summary ? { summary } : {}),
    ...(o.shiftMinutes ? { shiftMinutes: o.shiftMinutes } : {}),
    ...(note?.trim() ? { note } : {}),
    ...eventTitle,
  };
}

/** Whether an override changes anything (the server refuses one that does not). */
export function changesSomething(o: EventOverride): boolean {
  return o.hide === true || (o.summary !== undefined && o.summary !== '') || (o.shiftMinutes ?? 0) !== 0 || (o.note !== undefined && o.note !== '');
}

export type OverridesAction =
  /** Adds the override, or replaces the one naming the same event (in its place, so the list keeps its order). */
  | { type: 'set'; override: EventOverride }
  /** Undo: the override at `index` goes. */
  | { type: 'remove'; index: number };

/** The list after `action`; the same list when nothing changes (a full list takes no new event). */
export function overridesReducer(overrides: readonly EventOverride[], action: OverridesAction): readonly EventOverride[] {
  switch (action.type) {
    case 'set': {
      const override = cleanOverride(action.override);
      if (override.uid === '' || !changesSomething(override)) return overrides;
      const at = findOverride(overrides, override);
      if (at < 0) return overrides.length >= MAX_OVERRIDES ? overrides : [...overrides, override];
      return overrides.map((o, i) => (i === at ? override : o));
    }
    case 'remove':
      if (action.index < 0 || action.index >= overrides.length) return overrides;
      return overrides.filter((_, i) => i !== action.index);
  }
}

// --- Checks -------------------------------------------------------------------------------------

const RECURRENCE_ID = /^\d{8}(T\d{6}Z?)?$/i;

/** Unicode's control characters (Cc), as Rust's `char::is_control` reads them. */
const isControl = (c: string) => {
  const code = c.codePointAt(0) ?? 0;
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
};
/** Unicode scalar values, as the server counts characters (an emoji of one code point is one). */
const chars = (text: string) => Array.from(text);

export const SUMMARY_TEXT = `at most ${MAX_SUMMARY_CHARS} characters, on one line`;
export const NOTE_TEXT = `at most ${MAX_NOTE_CHARS} characters`;
export const SHIFT_TEXT = 'at most a year (366 days) either way';

/** Problems with a new title, or null: its length and no control characters (line breaks included). */
export function summaryProblem(summary: string): string | null {
  const list = chars(summary);
  if (list.length > MAX_SUMMARY_CHARS) return `at most ${MAX_SUMMARY_CHARS} characters (this one has ${list.length})`;
  if (list.some(isControl)) return 'a title is one line, without tabs or other control characters';
  return null;
}

/** Problems with a note, or null: its length and no control characters but line breaks and tabs. */
export function noteProblem(note: string): string | null {
  const list = chars(note);
  if (list.length > MAX_NOTE_CHARS) return `at most ${MAX_NOTE_CHARS} characters (this one has ${list.length})`;
  if (list.some((c) => isControl(c) && c !== '\n' && c !== '\t')) return 'control characters other than line breaks and tabs are not allowed';
  return null;
}

export const shiftInRange = (minutes: number) => Number.isSafeInteger(minutes) && Math.abs(minutes) <= MAX_SHIFT_MINUTES;

/** What the editor can tell is wrong before asking the server, at the paths the server names. */
export function checkOverrides(overrides: readonly EventOverride[]): OverrideProblem[] {
  const problems: OverrideProblem[] = [];
  if (overrides.length > MAX_OVERRIDES) problems.push({ path: 'overrides', message: `at most ${MAX_OVERRIDES} events changed by hand` });
  overrides.forEach((o, i) => {
    const at = `overrides[${i}]`;
    const uid = o.uid.trim();
    if (uid === '') problems.push({ path: `${at}.uid`, message: "the event's UID is missing" });
    else if (new TextEncoder().encode(uid).length > MAX_UID_BYTES) problems.push({ path: `${at}.uid`, message: `at most ${MAX_UID_BYTES} bytes` });
    const rid = o.recurrenceId?.trim();
    if (rid !== undefined && !RECURRENCE_ID.test(rid)) {
      problems.push({ path: `${at}.recurrenceId`, message: "a DATE (20240311) or DATE-TIME (20240311T100000) as the occurrence's RECURRENCE-ID" });
    }
    const summary = o.summary === undefined ? null : summaryProblem(o.summary);
    if (summary) problems.push({ path: `${at}.summary`, message: summary });
    const note = o.note === undefined ? null : noteProblem(o.note);
    if (note) problems.push({ path: `${at}.note`, message: note });
    if (o.shiftMinutes !== undefined && !shiftInRange(o.shiftMinutes)) problems.push({ path: `${at}.shiftMinutes`, message: SHIFT_TEXT });
    const edits = o.summary !== undefined || (o.shiftMinutes ?? 0) !== 0 || o.note !== undefined;
    if (o.hide && edits) problems.push({ path: at, message: 'a hidden event has nothing else to change: hide it, or change it' });
    else if (!o.hide && !edits) problems.push({ path: at, message: 'hide the event, or give it a new title, a shift in time or a note' });
  });
  return problems;
}

/** Whether a config path names the overrides (`overrides`, `overrides[3].note`). */
export const isOverridePath = (path: string) => path === 'overrides' || path.startsWith('overrides[');

/** The position a path names (`overrides[3].note` → 3), or null for the list as a whole. */
export function overrideIndexOf(path: string): number | null {
  const match = /^overrides\[(\d+)\]/.exec(path);
  return match ? Number(match[1]) : null;
}

// --- What is sent and kept ----------------------------------------------------------------------

/** The overrides as the server takes them: in the same order (the preview names them by position), without what this browser keeps for itself. */
export function wireOverrides(overrides: readonly EventOverride[]): WireOverride[] {
  return overrides.map((o) => ({
    uid: o.uid,
    ...(o.recurrenceId !== undefined ? { recurrenceId: o.recurrenceId } : {}),
    ...(o.hide ? { hide: true as const } : {}),
    ...(o.summary !== undefined ? { summary: o.summary } : {}),
    ...(o.shiftMinutes !== undefined ? { shiftMinutes: o.shiftMinutes } : {}),
    ...(o.note !== undefined ? { note: o.note } : {}),
  }));
}

const text = v.optional(v.string());

/** One stored override: without the shape of one it is dropped; the limits are checkOverrides's, so nothing typed is lost. */
const StoredOverrideSchema = v.pipe(
  v.object({
    uid: v.pipe(
      v.string(),
      v.check((uid) => uid.trim() !== ''),
    ),
    recurrenceId: text,
    hide: v.optional(v.boolean()),
    summary: text,
    shiftMinutes: v.optional(v.pipe(v.number(), v.integer())),
    note: text,
    eventTitle: text,
  }),
  v.transform(({ hide, ...o }): EventOverride => cleanOverride({ ...o, ...(hide ? { hide: true as const } : {}) })),
  v.check(changesSomething),
);

/**
 * The stored list (calendars:v1, `options.overrides`): one per event (the first, as the editor
 * never makes two), absent when empty, so a calendar without any reads as before.
 */
export const StoredOverridesSchema = v.fallback(
  v.optional(
    v.pipe(
      v.array(v.unknown()),
      v.transform((items) => {
        const seen = new Set<string>();
        const list = v.parse(listOf(StoredOverrideSchema), items).filter((o) => {
          const key = overrideKey(o);
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        });
        return list.length > 0 ? list : undefined;
      }),
    ),
  ),
  undefined,
);

// --- Words --------------------------------------------------------------------------------------

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** `90` → '1 hour 30 minutes later', `-1440` → '1 day earlier'. */
export function describeShift(minutes: number): string {
  const size = Math.abs(minutes);
  const days = Math.floor(size / 1440);
  const hours = Math.floor((size % 1440) / 60);
  const rest = size % 60;
  const parts = [days ? plural(days, 'day') : '', hours ? plural(hours, 'hour') : '', rest ? plural(rest, 'minute') : ''].filter(Boolean);
  return `${parts.join(' ')} ${minutes < 0 ? 'earlier' : 'later'}`;
}

/** At most `max` characters of `text` on one line, cut with an ellipsis. */
function excerpt(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const list = chars(line);
  return list.length <= max
    ? line
    : `${list
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** The event an override names, in words: its title (or UID), and the occurrence's date. */
export function describeTarget(o: EventOverride): string {
  const name = o.eventTitle?.trim() ? excerpt(o.eventTitle, 80) : `UID ${excerpt(o.uid, 60)}`;
  if (!o.recurrenceId) return name;
  return `${name} on ${readableIcsDate(o.recurrenceId) ?? o.recurrenceId}`;
}

/** What an override does, in words: 'hidden', 'new title “Budget meeting”, 30 minutes later'. */
export function describeChange(o: EventOverride): string {
  if (o.hide) return o.recurrenceId ? 'this occurrence hidden' : 'hidden';
  const parts: string[] = [];
  if (o.summary !== undefined) parts.push(`new title “${excerpt(o.summary, 80)}”`);
  if (o.shiftMinutes) parts.push(describeShift(o.shiftMinutes));
  if (o.note !== undefined) parts.push(`note “${excerpt(o.note, 60)}”`);
  return parts.length > 0 ? parts.join(', ') : 'nothing changed';
}

/** One line for the list: 'Team meeting: new title “Budget meeting”, 30 minutes later'. */
export function describeOverride(o: EventOverride): string {
  return `${describeTarget(o)}: ${describeChange(o)}`;
}

// --- Gone upstream ------------------------------------------------------------------------------

/**
 * The events (by overrideKey) whose overrides the server found no event for: `unmatched` are
 * positions in `sent`, the overrides of the preview it answered. Kept by event, so an override
 * undone or added since is marked by what the server said of its own event.
 */
export function goneKeys(sent: readonly { uid: string; recurrenceId?: string }[], unmatched: readonly number[]): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const i of unmatched) {
    const o = sent[i];
    if (o) keys.add(overrideKey(o));
  }
  return keys;
}
