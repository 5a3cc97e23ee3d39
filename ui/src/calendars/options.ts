// A calendar's options beside its mapping (issue 14, README "Calendar config"): filter rules, a
// date window, time-zone repair, alarms and privacy. Pure: the shapes and their stored schema,
// the rule-editing reducer, the config sent to the server, the editor's own checks, the words for
// a rule and a decision, and the window suggested when the output is over Google's limit.
import * as v from 'valibot';
import { listOf, record } from '../lib/schema';
import { formatCount } from '../lib/units';
import type { Mapping } from './calendar';

// Events changed by hand, past events that stay, properties and UIDs: their own modules, held in the options.
import { checkHistory, StoredHistorySchema, type CalendarHistory } from './history';
import { checkProperties, StoredPropertiesSchema, type CalendarProperties, type UidMode } from './properties';
import {
  checkOverrides,
  overridesReducer,
  StoredOverridesSchema,
  wireOverrides,
  type EventOverride,
  type OverridesAction,
  type WireOverride,
} from './overrides';

export type FilterAction = 'include' | 'exclude';
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const WEEKDAY_NAMES: Record<Weekday, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};

/** The regex flags of the template engine that a property rule may use. */
export const RULE_FLAGS = ['i', 'm', 's', 'x', 'U'] as const;

/** A rule's set of weekdays or flags after one checkbox: in `order`, and only what `order` knows. */
export function toggled<T>(order: readonly T[], chosen: readonly T[], item: T, on: boolean): T[] {
  return order.filter((x) => (x === item ? on : chosen.includes(x)));
}

export type FilterRule =
  | { action: FilterAction; field: string; pattern: string; flags?: string }
  | { action: FilterAction; allDay: boolean }
  | { action: FilterAction; weekdays: Weekday[] }
  | { action: FilterAction; timeOfDay: { from: string; to: string } }
  | { action: FilterAction; duration: { minMinutes?: number; maxMinutes?: number } }
  | { action: FilterAction; status: string }
  | { action: FilterAction; uid: string; recurrenceId?: string }
  | { action: FilterAction; component: 'VTODO' | 'VJOURNAL' };

export const RULE_KINDS = ['property', 'allDay', 'weekdays', 'timeOfDay', 'duration', 'status', 'uid', 'component'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const RULE_KIND_LABELS: Record<RuleKind, string> = {
  property: 'A field matches a pattern',
  allDay: 'All-day or timed',
  weekdays: 'Weekdays',
  timeOfDay: 'Time of day',
  duration: 'Duration',
  status: 'Status',
  uid: 'One event or series (UID)',
  component: 'Tasks or journal entries',
};

export interface CalendarWindow {
  pastDays?: number;
  futureDays?: number;
}
export type Timezones = 'keep' | 'repair';
export type Alarms = 'keep' | 'strip' | { addMinutesBefore: number };
export type Privacy = 'full' | 'busy';

/** Everything of a calendar's config but the mapping; absent keys keep today's behaviour. */
export interface CalendarOptions {
  filters: FilterRule[];
  window?: CalendarWindow;
  timezones?: Timezones;
  alarms?: Alarms;
  privacy?: Privacy;
  /** Events changed by hand (overrides.ts); absent when there are none. */
  overrides?: readonly EventOverride[];
  /** Past events that stay (history.ts); absent: off. */
  history?: CalendarHistory;
  /**
   * 'each': the day, time and length rules and the window judge every occurrence of a repeating
   * event; absent: a series is kept or dropped whole, by its first occurrence (as before).
   */
  occurrences?: 'each';
  /** Properties beyond the five templates (properties.ts); absent when none is set. */
  properties?: CalendarProperties;
  /** 'content': events get UIDs made from their content (properties.ts); absent: the feed's own. */
  uids?: UidMode;
  /** The agenda page and its JSON (`/cal/{id}`, agenda.ts); absent: off. */
  agenda?: true;
}

/** The whole config as the server takes it (POST /api/preview, and beside id/name/url on publish). */
export interface CalendarConfig extends Partial<Omit<CalendarOptions, 'filters' | 'overrides'>> {
  mapping: Mapping;
  filters?: FilterRule[];
  overrides?: WireOverride[];
}

export const MAX_WINDOW_DAYS = 36500;
export const MAX_ALARM_MINUTES = 40320;
/** Google Calendar stops reading subscribed feeds larger than about this. */
export const GOOGLE_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_WINDOW: Required<CalendarWindow> = { pastDays: 30, futureDays: 365 };

/**
 * A new calendar repairs time zones and judges each occurrence; one saved before these options
 * existed keeps its behaviour.
 */
export function newCalendarOptions(): CalendarOptions {
  return { filters: [], timezones: 'repair', occurrences: 'each' };
}

export function emptyOptions(): CalendarOptions {
  return { filters: [] };
}

/** Options that change nothing: no filters and no other key. */
export function isEmptyOptions(options: CalendarOptions): boolean {
  return options.filters.length === 0 && Object.values(withoutUndefined({ ...options, filters: undefined })).length === 0;
}

// --- Stored shape (calendars:v1, `options`) ----------------------------------------------------

const action = v.picklist(['include', 'exclude']);
const days = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_WINDOW_DAYS));
const minutes = v.pipe(v.number(), v.integer(), v.minValue(0));
const clock = v.pipe(v.string(), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/));

const RuleSchema = v.union([
  v.object({ action, field: v.pipe(v.string(), v.nonEmpty()), pattern: v.string(), flags: v.optional(v.string()) }),
  v.object({ action, allDay: v.boolean() }),
  v.object({ action, weekdays: v.array(v.picklist(WEEKDAYS)) }),
  v.object({ action, timeOfDay: v.object({ from: clock, to: clock }) }),
  v.object({ action, duration: v.object({ minMinutes: v.optional(minutes), maxMinutes: v.optional(minutes) }) }),
  v.object({ action, status: v.string() }),
  v.object({ action, uid: v.pipe(v.string(), v.nonEmpty()), recurrenceId: v.optional(v.string()) }),
  v.object({ action, component: v.picklist(['VTODO', 'VJOURNAL']) }),
]);

const optional = <T extends v.GenericSchema>(schema: T) => v.fallback(v.optional(schema), undefined);

/** Stored options: a rule without the shape of one is dropped, a bad option is left out (= keep). */
export const CalendarOptionsSchema = v.pipe(
  record({
    filters: listOf(RuleSchema),
    window: optional(v.object({ pastDays: v.optional(days), futureDays: v.optional(days) })),
    timezones: optional(v.picklist(['keep', 'repair'])),
    alarms: optional(v.union([v.picklist(['keep', 'strip']), v.object({ addMinutesBefore: v.pipe(minutes, v.maxValue(MAX_ALARM_MINUTES)) })])),
    privacy: optional(v.picklist(['full', 'busy'])),
    overrides: StoredOverridesSchema,
    history: StoredHistorySchema,
    occurrences: optional(v.literal('each')),
    properties: StoredPropertiesSchema,
    uids: optional(v.literal('content')),
    agenda: optional(v.literal(true)),
  }),
  v.transform((o): CalendarOptions => withoutUndefined({ ...o, filters: o.filters })),
);

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// --- Rules --------------------------------------------------------------------------------------

export function ruleKind(rule: FilterRule): RuleKind {
  if ('field' in rule) return 'property';
  if ('allDay' in rule) return 'allDay';
  if ('weekdays' in rule) return 'weekdays';
  if ('timeOfDay' in rule) return 'timeOfDay';
  if ('duration' in rule) return 'duration';
  if ('status' in rule) return 'status';
  if ('uid' in rule) return 'uid';
  return 'component';
}

/** A fresh rule of `kind`, excluding, with values that make sense to start from. */
export function newRule(kind: RuleKind, act: FilterAction = 'exclude'): FilterRule {
  switch (kind) {
    case 'property':
      return { action: act, field: 'SUMMARY', pattern: '', flags: 'i' };
    case 'allDay':
      return { action: act, allDay: true };
    case 'weekdays':
      // Nothing chosen yet: the rule drops nothing until the visitor picks its days.
      return { action: act, weekdays: [] };
    case 'timeOfDay':
      return { action: act, timeOfDay: { from: '09:00', to: '17:00' } };
    case 'duration':
      return { action: act, duration: { minMinutes: 0, maxMinutes: 60 } };
    case 'status':
      return { action: act, status: 'CANCELLED' };
    case 'uid':
      return { action: act, uid: '' };
    case 'component':
      return { action: act, component: 'VTODO' };
  }
}

export type OptionsAction =
  | { type: 'addRule'; kind: RuleKind }
  | { type: 'removeRule'; index: number }
  | { type: 'moveRule'; index: number; delta: -1 | 1 }
  | { type: 'updateRule'; index: number; rule: FilterRule }
  | { type: 'setWindow'; window: CalendarWindow | undefined }
  | { type: 'setTimezones'; timezones: Timezones }
  | { type: 'setAlarms'; alarms: Alarms }
  | { type: 'setPrivacy'; privacy: Privacy }
  | { type: 'overrides'; action: OverridesAction }
  | { type: 'setHistory'; history: CalendarHistory | undefined }
  | { type: 'setEachOccurrence'; each: boolean }
  | { type: 'setProperties'; properties: CalendarProperties | undefined }
  | { type: 'setUids'; uids: UidMode | undefined }
  | { type: 'setAgenda'; agenda: boolean };

export function optionsReducer(options: CalendarOptions, act: OptionsAction): CalendarOptions {
  const filters = options.filters;
  switch (act.type) {
    case 'addRule':
      return { ...options, filters: [...filters, newRule(act.kind)] };
    case 'removeRule':
      return { ...options, filters: filters.filter((_, i) => i !== act.index) };
    case 'moveRule': {
      const to = act.index + act.delta;
      if (act.index < 0 || act.index >= filters.length || to < 0 || to >= filters.length) return options;
      const moved = [...filters];
      [moved[act.index], moved[to]] = [moved[to] as FilterRule, moved[act.index] as FilterRule];
      return { ...options, filters: moved };
    }
    case 'updateRule':
      if (act.index < 0 || act.index >= filters.length) return options;
      return { ...options, filters: filters.map((rule, i) => (i === act.index ? act.rule : rule)) };
    case 'setWindow':
      return withoutUndefined({ ...options, window: act.window });
    case 'setTimezones':
      return { ...options, timezones: act.timezones };
    case 'setAlarms':
      return { ...options, alarms: act.alarms };
    case 'setPrivacy':
      return { ...options, privacy: act.privacy };
    case 'overrides': {
      const current = options.overrides ?? [];
      const overrides = overridesReducer(current, act.action);
      if (overrides === current) return options;
      // The last one undone: the key goes, so the options read as before overrides existed.
      return withoutUndefined({ ...options, overrides: overrides.length > 0 ? overrides : undefined });
    }
    case 'setHistory':
      return withoutUndefined({ ...options, history: act.history && { keepDays: act.history.keepDays } });
    case 'setEachOccurrence':
      return withoutUndefined({ ...options, occurrences: act.each ? 'each' : undefined });
    case 'setProperties':
      return withoutUndefined({ ...options, properties: act.properties && Object.keys(act.properties).length > 0 ? { ...act.properties } : undefined });
    case 'setUids':
      return withoutUndefined({ ...options, uids: act.uids });
    case 'setAgenda':
      return withoutUndefined({ ...options, agenda: act.agenda ? true : undefined });
  }
}

/**
 * The occurrence "Hide this event" (or occurrence) names: a changed occurrence's RECURRENCE-ID; for a recurring
 * event's own entry its first occurrence (DTSTART); none for a single event (its UID is enough).
 */
export function occurrenceOf(event: Record<string, string>): string | undefined {
  const rid = event['RECURRENCE-ID']?.trim();
  if (rid) return rid;
  if (event.RRULE || event.RDATE) return event.DTSTART?.trim() || undefined;
  return undefined;
}

// --- Config and checks --------------------------------------------------------------------------

/** The config the server takes: the mapping and the options that say something. */
export function buildConfig(mapping: Mapping, options: CalendarOptions): CalendarConfig {
  const config: CalendarConfig = { mapping };
  if (options.filters.length > 0) config.filters = options.filters.map(cleanRule);
  if (options.window) config.window = withoutUndefined({ ...options.window });
  if (options.timezones) config.timezones = options.timezones;
  if (options.alarms) config.alarms = options.alarms;
  if (options.privacy) config.privacy = options.privacy;
  if (options.overrides && options.overrides.length > 0) config.overrides = wireOverrides(options.overrides);
  if (options.history) config.history = { keepDays: options.history.keepDays };
  if (options.occurrences === 'each') config.occurrences = 'each';
  if (options.properties && Object.keys(options.properties).length > 0) config.properties = { ...options.properties };
  if (options.uids === 'content') config.uids = 'content';
  if (options.agenda) config.agenda = true;
  return config;
}

/** Empty optional parts left out (no empty flags, no empty recurrence id, no unset bounds). */
function cleanRule(rule: FilterRule): FilterRule {
  if ('field' in rule) {
    const { flags, ...rest } = rule;
    return flags ? { ...rest, flags } : rest;
  }
  if ('uid' in rule) {
    const { recurrenceId, ...rest } = rule;
    return recurrenceId ? { ...rest, recurrenceId } : rest;
  }
  if ('duration' in rule) return { ...rule, duration: withoutUndefined({ ...rule.duration }) };
  return rule;
}

export interface OptionProblem {
  /** The config path, as the server names it: `filters[0].pattern`, `window.pastDays`. */
  path: string;
  message: string;
}

/** What a number out of its range is told, in checkOptions and by the editor's number boxes. */
export const WINDOW_DAYS_TEXT = `whole days from 0 to ${MAX_WINDOW_DAYS}`;
export const DURATION_MINUTES_TEXT = 'minutes are whole numbers, 0 or more';
export const ALARM_MINUTES_TEXT = `whole minutes from 0 to ${MAX_ALARM_MINUTES}`;

const isDays = (n: number | undefined) => n === undefined || (Number.isInteger(n) && n >= 0 && n <= MAX_WINDOW_DAYS);

/** What the editor can tell is wrong before asking the server (the regexes are the server's). */
export function checkOptions(options: CalendarOptions): OptionProblem[] {
  const problems: OptionProblem[] = [];
  options.filters.forEach((rule, i) => {
    const at = `filters[${i}]`;
    if ('field' in rule) {
      if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(rule.field)) problems.push({ path: `${at}.field`, message: 'name an ICS property, e.g. SUMMARY' });
      if (rule.pattern === '') problems.push({ path: `${at}.pattern`, message: 'the pattern is empty' });
    } else if ('weekdays' in rule) {
      if (rule.weekdays.length === 0) problems.push({ path: `${at}.weekdays`, message: 'choose at least one weekday' });
    } else if ('timeOfDay' in rule) {
      const { from, to } = rule.timeOfDay;
      if (!/^\d\d:\d\d$/.test(from) || !/^\d\d:\d\d$/.test(to)) problems.push({ path: `${at}.timeOfDay`, message: 'give both times as HH:MM' });
      // A range past midnight (22:00 to 06:00) wraps; only an empty one is wrong.
      else if (from === to) problems.push({ path: `${at}.timeOfDay`, message: 'from and to are the same time: the range is empty' });
    } else if ('duration' in rule) {
      const { minMinutes: min, maxMinutes: max } = rule.duration;
      if (min === undefined && max === undefined) problems.push({ path: `${at}.duration`, message: 'give the shortest, the longest or both' });
      else if ([min, max].some((n) => n !== undefined && (!Number.isInteger(n) || n < 0)))
        problems.push({ path: `${at}.duration`, message: DURATION_MINUTES_TEXT });
      else if (min !== undefined && max !== undefined && min > max)
        problems.push({ path: `${at}.duration`, message: 'the shortest must not be longer than the longest' });
    } else if ('status' in rule) {
      if (rule.status.trim() === '') problems.push({ path: `${at}.status`, message: 'the status is empty' });
    } else if ('uid' in rule) {
      if (rule.uid.trim() === '') problems.push({ path: `${at}.uid`, message: 'the UID is empty' });
      const rid = rule.recurrenceId?.trim() ?? '';
      if (rid !== '' && !/^\d{8}(T\d{6}Z?)?$/i.test(rid))
        problems.push({ path: `${at}.recurrenceId`, message: 'a RECURRENCE-ID value: YYYYMMDD or YYYYMMDDTHHMMSS[Z]' });
    }
  });
  const w = options.window;
  if (w) {
    if (!isDays(w.pastDays)) problems.push({ path: 'window.pastDays', message: WINDOW_DAYS_TEXT });
    if (!isDays(w.futureDays)) problems.push({ path: 'window.futureDays', message: WINDOW_DAYS_TEXT });
  }
  const a = options.alarms;
  if (typeof a === 'object' && !(Number.isInteger(a.addMinutesBefore) && a.addMinutesBefore >= 0 && a.addMinutesBefore <= MAX_ALARM_MINUTES)) {
    problems.push({ path: 'alarms.addMinutesBefore', message: ALARM_MINUTES_TEXT });
  }
  problems.push(...checkOverrides(options.overrides ?? []), ...checkHistory(options.history), ...checkProperties(options.properties));
  return problems;
}

// --- Words --------------------------------------------------------------------------------------

/** Days in words, as the engine names them: runs of three or more as "Monday to Friday". */
export function weekdayWords(days: readonly Weekday[]): string {
  const parts: string[] = [];
  for (let at = 0; at < WEEKDAYS.length; at += 1) {
    if (!days.includes(WEEKDAYS[at] as Weekday)) continue;
    let end = at;
    while (end + 1 < WEEKDAYS.length && days.includes(WEEKDAYS[end + 1] as Weekday)) end += 1;
    const name = (i: number) => WEEKDAY_NAMES[WEEKDAYS[i] as Weekday];
    if (end - at >= 2) parts.push(`${name(at)} to ${name(end)}`);
    else for (let i = at; i <= end; i += 1) parts.push(name(i));
    at = end;
  }
  return parts.join(', ');
}

/** One line for a rule, the way the server names it in a decision's reason. */
export function describeRule(rule: FilterRule): string {
  const verb = rule.action;
  if ('field' in rule) return `${verb} ${rule.field} ~ /${rule.pattern}/${rule.flags ?? ''}`;
  if ('allDay' in rule) return `${verb} ${rule.allDay ? 'all-day' : 'timed'} events`;
  if ('weekdays' in rule) return `${verb} on ${weekdayWords(rule.weekdays) || 'no weekday'}`;
  if ('timeOfDay' in rule) return `${verb} starting ${rule.timeOfDay.from}–${rule.timeOfDay.to}`;
  if ('duration' in rule) return `${verb} lasting ${rule.duration.minMinutes ?? 0}–${rule.duration.maxMinutes ?? '∞'} min`;
  if ('status' in rule) return `${verb} STATUS ${rule.status}`;
  if ('uid' in rule) return `${verb} UID ${rule.uid}${rule.recurrenceId ? ` at ${rule.recurrenceId}` : ''}`;
  return `${verb} ${rule.component}`;
}

export interface Decision {
  kept: boolean;
  reason?: string;
  /** Occurrences of this series the filters or the window drop (judged one by one). */
  droppedOccurrences?: number;
  /** Too many dropped occurrences to remove one by one: the series is kept whole. */
  keptWhole?: boolean;
  /** Why (the engine's KeptWhole): it never ends, too many occurrences, or its rule could not be followed. */
  keptWholeBecause?: 'endless' | 'tooMany' | 'unfollowed';
}

/** Why a series is kept whole, with the way out where there is one. */
const KEPT_WHOLE_TEXT: Record<NonNullable<Decision['keptWholeBecause']>, string> = {
  endless:
    'Kept whole in the hosted feed: it repeats without end, so the occurrences your rules drop cannot all be removed. Set “Days ahead” under “Only keep events near today” to end it there.',
  tooMany:
    'Kept whole in the hosted feed: your rules drop more of its occurrences than can be removed one by one. Fewer “Days ahead” or “Days back” leave fewer to remove.',
  unfollowed: 'Kept whole in the hosted feed: its repeat rule could not be followed occurrence by occurrence.',
};

/** 'Kept' or 'Dropped: filter 2 (…)' for the sample browser and the preview. */
export function describeDecision(decision: Decision | undefined): string {
  if (!decision) return '';
  if (decision.kept && decision.keptWhole) {
    return decision.keptWholeBecause
      ? KEPT_WHOLE_TEXT[decision.keptWholeBecause]
      : 'Kept whole in the hosted feed: too many of its occurrences to judge one by one';
  }
  const dropped = decision.droppedOccurrences ?? 0;
  if (decision.kept && dropped > 0) {
    return `Kept in the hosted feed without ${dropped.toLocaleString('en')} ${dropped === 1 ? 'occurrence' : 'occurrences'} the filters drop`;
  }
  if (decision.kept) return 'Kept in the hosted feed';
  return decision.reason ? `Dropped: ${decision.reason}` : 'Dropped';
}

/** How many occurrences of the kept events the span holds: '1,234 occurrences from 2026-10-27 to 2027-11-26'. */
export function occurrencesText(o: { count: number; from: string; to: string; atLeast: boolean }): string {
  const n = `${o.atLeast ? 'at least ' : ''}${o.count.toLocaleString('en')}`;
  return `${n} ${o.count === 1 ? 'occurrence' : 'occurrences'} from ${o.from} to ${o.to}`;
}

/** 'keeps N of M events'. */
export function keepsText(kept: number, total: number): string {
  return `keeps ${formatCount(kept)} of ${formatCount(total)} ${total === 1 ? 'event' : 'events'}`;
}

/**
 * A window that should bring the output under Google's limit, or null when it is under already.
 * Events are assumed spread evenly over the window's days: the days shrink by the share of bytes
 * that must go, with a tenth to spare; without a window, a year ahead and a month back is the start.
 */
export function suggestWindow(outputBytes: number, window: CalendarWindow | undefined, limit = GOOGLE_LIMIT_BYTES): Required<CalendarWindow> | null {
  if (outputBytes <= limit) return null;
  const past = window?.pastDays;
  const future = window?.futureDays;
  if (past === undefined && future === undefined) return { ...DEFAULT_WINDOW };
  const share = (limit * 0.9) / outputBytes;
  const scale = (days: number | undefined, fallback: number) => Math.max(1, Math.floor((days ?? fallback) * share));
  return { pastDays: scale(past, DEFAULT_WINDOW.pastDays), futureDays: scale(future, DEFAULT_WINDOW.futureDays) };
}

/** The parts of the config the options panel edits, by the first name of a path. */
const OPTION_ROOTS = new Set(['filters', 'window', 'timezones', 'alarms', 'privacy', 'overrides', 'history', 'occurrences', 'properties', 'uids', 'agenda']);

/**
 * The server names the input a failure is about in its `field` (`filters[1].pattern`); a failure
 * about the options becomes a problem at that path, anything else (the network, the feed, the
 * mapping) stays null. The words are the server's, never searched for the path.
 */
export function problemFromServer(failure: { message: string; field: string | null }): OptionProblem | null {
  const { field, message } = failure;
  if (field === null) return null;
  const root = field.split(/[.[]/, 1)[0] ?? '';
  return OPTION_ROOTS.has(root) ? { path: field, message } : null;
}
