// The calendar tool's model: the five mapped fields, a saved calendar, and the small rules the
// screens share (the default mapping, the webcal: form of an address, feed sizes).
import * as v from 'valibot';
import { filled, record, text } from '../lib/schema';
import { CalendarOptionsSchema } from './options';
import { StoredSourcesSchema, type FeedSource } from './sources';

export const MAPPING_FIELDS = ['SUMMARY', 'DESCRIPTION', 'LOCATION', 'DTSTART', 'DTEND'] as const;
export type MappingField = (typeof MAPPING_FIELDS)[number];
export type Mapping = Record<MappingField, string>;

/** The fields the preview shows (SPEC.md 2). */
export const PREVIEW_FIELDS: readonly MappingField[] = ['SUMMARY', 'DESCRIPTION', 'LOCATION'];

export const DEFAULT_NAME = 'New Calendar';

/** Feeds larger than this get a warning: Google Calendar stops importing large feeds. */
export const LARGE_FEED_BYTES = 1024 * 1024;

export function isMappingField(value: string): value is MappingField {
  return (MAPPING_FIELDS as readonly string[]).includes(value);
}

/** Each field mapped to its own token: the feed comes out as it went in. */
export function defaultMapping(): Mapping {
  return {
    SUMMARY: '${SUMMARY}',
    DESCRIPTION: '${DESCRIPTION}',
    LOCATION: '${LOCATION}',
    DTSTART: '${DTSTART}',
    DTEND: '${DTEND}',
  };
}

/** The id rule of the server (1 to 64 of A-Z a-z 0-9 _ -). */
export function isValidId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(id);
}

const template = (field: MappingField) => v.fallback(v.string(), `\${${field}}`);

/** A stored mapping: a missing or non-text template is that field's default. */
const MappingSchema = v.fallback(
  record({
    SUMMARY: template('SUMMARY'),
    DESCRIPTION: template('DESCRIPTION'),
    LOCATION: template('LOCATION'),
    DTSTART: template('DTSTART'),
    DTEND: template('DTEND'),
  } satisfies Record<MappingField, unknown>),
  defaultMapping,
);

/** A hosting field: kept when it holds text, dropped (key and all) otherwise. */
const hostingField = v.fallback(v.optional(filled), undefined);

/** One source without a label, a prefix, a kind or a login is the plain address: `sources` is then left out (sources.ts). */
const isPlainOne = (sources: FeedSource[]) =>
  sources.length === 1 &&
  sources[0]?.label === undefined &&
  sources[0]?.prefix === undefined &&
  sources[0]?.kind === undefined &&
  sources[0]?.auth === undefined;

/**
 * One calendar as `calendars:v1` stores it (DESIGN.md "Browser storage"). Without a valid id and a
 * feed address it is not one. A merged calendar keeps its first source's address in `url` too, so
 * a page from before sources still reads it (as a calendar of that one feed).
 */
export const SavedCalendarSchema = v.pipe(
  record({
    id: v.pipe(v.string(), v.check(isValidId)),
    name: text,
    url: filled,
    mapping: MappingSchema,
    /** ISO timestamp of the last Save; empty before the first. */
    lastBuiltAt: text,
    /** Given by the server on the first publish; needed to republish or unpublish. */
    editToken: hostingField,
    hostedUrl: hostingField,
    /** What the last Build & Host sent, as comparable text (src/calendars/live.ts). */
    publishedConfig: hostingField,
    /** Filters, window, time zones, alarms, privacy (issue 14); absent before they existed. */
    options: v.fallback(v.optional(CalendarOptionsSchema), undefined),
    /** The feeds merged into this calendar (sources.ts); absent for a calendar of one plain feed. */
    sources: v.fallback(v.optional(StoredSourcesSchema), undefined),
  }),
  // A hosted address without the token to manage it is still worth showing; a token alone is kept
  // so a republish can reclaim the id.
  v.transform(({ editToken, hostedUrl, publishedConfig, options, sources, ...calendar }) => ({
    ...calendar,
    // The first source's address is the calendar's `url` (what the editor's link and the list show).
    ...(sources && !isPlainOne(sources) ? { url: sources[0]?.url ?? calendar.url, sources } : {}),
    ...(editToken ? { editToken } : {}),
    ...(hostedUrl ? { hostedUrl } : {}),
    ...(publishedConfig ? { publishedConfig } : {}),
    ...(options ? { options } : {}),
  })),
);

export type SavedCalendar = v.InferOutput<typeof SavedCalendarSchema>;

/**
 * The editor's unsaved work on one calendar (`calendar:draft:{id}`, editorSession.ts): what Save
 * would keep of it, written while it differs from the saved calendar (or for a calendar never
 * saved), with when. Its address may be blank (every feed removed), which a saved calendar's may not.
 */
export const CalendarDraftSchema = record({
  id: v.pipe(v.string(), v.check(isValidId)),
  name: text,
  url: text,
  sources: v.fallback(v.optional(StoredSourcesSchema), undefined),
  mapping: MappingSchema,
  options: v.fallback(v.optional(CalendarOptionsSchema), undefined),
  /** ISO timestamp of the write. */
  savedAt: text,
});

export type CalendarDraft = v.InferOutput<typeof CalendarDraftSchema>;

/** A draft read as the calendar it would save (the editor's opening state, the list's entry). */
export function draftCalendar(draft: CalendarDraft): SavedCalendar {
  const { savedAt, options, sources, ...rest } = draft;
  return { ...rest, lastBuiltAt: savedAt, ...(options ? { options } : {}), ...(sources ? { sources } : {}) };
}

/** The address calendar apps subscribe to: http(s) replaced by webcal (SPEC.md 7). */
export function toWebcal(url: string): string {
  return url.replace(/^https?:/i, 'webcal:');
}

/** The editor's address for a calendar (SPEC.md 2: /calendars/new with id, url and name). */
export function editorPath(calendar: Pick<SavedCalendar, 'id' | 'url' | 'name'>): string {
  const query = new URLSearchParams({ id: calendar.id, url: calendar.url, name: calendar.name });
  return `/calendars/new?${query.toString()}`;
}

/** A new calendar's id: a v4 UUID (the server accepts 1 to 64 of A-Z a-z 0-9 _ -). */
export { newId as newCalendarId } from '../lib/uuid';
