// The server calls of the calendar tool (src/publish/api.rs): the feed as the editor sees it (one
// address, or the merged sources), the preview render, publishing and unpublishing, a published
// calendar's status and its second addresses for Google. Answers are checked before use; failures become an ApiError
// carrying the HTTP status, the server's own words and the input they are about.
import * as v from 'valibot';
import { CalendarStatusSchema } from '../lib/feedHealth';
import { count, isRecord, listOf, nonEmpty, orNull, parseOrNull, record, text, textsOf } from '../lib/schema';
import { MAPPING_FIELDS, type Mapping, type MappingField } from './calendar';
import type { CalendarConfig } from './options';
import type { SampleEvent } from './samples';
import { FoundCalendarsSchema, type FoundCalendar } from './caldav';
import type { GivenLogin } from './sourceLogin';
import type { CalendarOwner, FeedSource, FeedWire } from './sources';

export class ApiError extends Error {
  /** 0 when the server could not be reached. */
  readonly status: number;
  /**
   * The input the message is about, as the server names it (`url`, `name`, `mapping.SUMMARY`,
   * `filters[1].pattern`, `window.pastDays`, …), or null. The message never repeats it.
   */
  readonly field: string | null;
  constructor(status: number, message: string, field: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.field = field;
  }
}

const TemplateErrorSchema = record({ field: text, position: count, message: text });

/** The feed's last change brought most of its events back under new UIDs (properties.ts words it). */
const UidsChangedSchema = orNull(record({ at: text, events: count, renamed: count }));

/** One source of a merged feed, as read this time (POST /api/feed with sources). */
const SourceStatusSchema = record({
  url: text,
  eventCount: count,
  sizeBytes: count,
  fetchedAt: orNull(v.string()),
  /** Upstream failed and the source's older copy is merged: why. */
  stale: orNull(v.string()),
  /** Upstream failed and there is no copy: the merged feed holds the other sources only. */
  error: orNull(v.string()),
  uidsChanged: UidsChangedSchema,
});

const BLANK_SOURCE = { url: '', eventCount: 0, sizeBytes: 0, fetchedAt: null, stale: null, error: null, uidsChanged: null };

/** A list read item by item in place: what an index names must not shift when one item is bad. */
const inPlace = <T extends v.GenericSchema>(item: T, blank: v.InferOutput<T>) =>
  v.fallback(
    v.pipe(
      v.array(v.unknown()),
      v.transform((items) =>
        items.map((value): v.InferOutput<T> => {
          const result = v.safeParse(item, value);
          return result.success ? result.output : blank;
        }),
      ),
    ),
    () => [],
  );

const FeedAnswerSchema = v.pipe(
  record({
    url: text,
    /** Each event's text properties; other values are dropped. */
    events: v.array(textsOf),
    eventCount: count,
    offset: count,
    sizeBytes: count,
    warnings: listOf(v.string()),
    warningCount: count,
    fetchedAt: text,
    /** Set when upstream failed and an older copy is shown: why. */
    stale: orNull(v.string()),
    /** A merged feed's sources, in the order asked; empty for one address. */
    sources: inPlace(SourceStatusSchema, BLANK_SOURCE),
    /** For each event of `events`, the index in `sources` of the one it came from; empty for one address. */
    eventSources: inPlace(v.pipe(v.number(), v.integer(), v.minValue(0)), -1),
    /** One address whose last change brought most events back under new UIDs; null otherwise. */
    uidsChanged: UidsChangedSchema,
  }),
  // Only the first warnings are sent; the count says how many there were.
  v.transform((feed) => ({ ...feed, warningCount: Math.max(feed.warningCount, feed.warnings.length) })),
);

const MappingRenderSchema = record({
  fields: v.pipe(
    v.custom<Record<string, unknown>>(isRecord),
    v.transform((fields) => {
      const rendered: Partial<Record<MappingField, string>> = {};
      for (const field of MAPPING_FIELDS) {
        const value = fields[field];
        if (typeof value === 'string') rendered[field] = value;
      }
      return rendered;
    }),
  ),
  errors: listOf(TemplateErrorSchema),
});

const TemplateRenderSchema = record({ result: v.string(), errors: listOf(TemplateErrorSchema) });

const PublishAnswerSchema = record({
  hostedUrl: nonEmpty,
  /** Only on the first publish of an id. */
  editToken: orNull(nonEmpty),
});

const DecisionSchema = v.pipe(
  record({
    kept: v.boolean(),
    reason: orNull(v.string()),
    droppedOccurrences: v.optional(count),
    keptWhole: v.optional(v.boolean()),
    // A word this page does not know is no reason: the general words are said.
    keptWholeBecause: v.fallback(v.optional(v.picklist(['endless', 'tooMany', 'unfollowed'])), undefined),
  }),
  v.transform(({ kept, reason, droppedOccurrences, keptWhole, keptWholeBecause }) => ({
    kept,
    ...(reason ? { reason } : {}),
    ...(droppedOccurrences ? { droppedOccurrences } : {}),
    ...(keptWhole ? { keptWhole } : {}),
    ...(keptWhole && keptWholeBecause ? { keptWholeBecause } : {}),
  })),
);

/** How many occurrences of the kept events fall in the window (a year either side where it is open). */
const OccurrencesSchema = record({ count, from: v.string(), to: v.string(), atLeast: v.boolean() });

/** POST /api/preview: the whole feed through the engine with the config (issue 14). */
const PreviewAnswerSchema = record({
  eventCount: count,
  keptCount: count,
  outputBytes: count,
  /** One per event of the feed, in the order of /api/feed. */
  decisions: v.array(DecisionSchema),
  occurrences: v.optional(OccurrencesSchema),
  warnings: listOf(v.string()),
  /** Positions in the config's `overrides` whose event the feed has no more (overrides.ts). */
  unmatchedOverrides: listOf(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

const ErrorAnswerSchema = record({ error: nonEmpty, field: orNull(nonEmpty) });

/** An address the server hosts a feed at: an http(s) URL, nothing else. */
const hostedAddress = v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//));

/**
 * GET /api/calendars/{id}/status: the health (feedHealth.ts reads it, as it reads the owner page's)
 * and the addresses made for Google, newest first; an address that is none is dropped.
 */
const StatusAnswerSchema = v.intersect([CalendarStatusSchema, record({ googleAddresses: listOf(hostedAddress) })]);

export type FeedAnswer = v.InferOutput<typeof FeedAnswerSchema>;
export type SourceStatus = v.InferOutput<typeof SourceStatusSchema>;
export type TemplateError = v.InferOutput<typeof TemplateErrorSchema>;
export type MappingRender = v.InferOutput<typeof MappingRenderSchema>;
export type TemplateRender = v.InferOutput<typeof TemplateRenderSchema>;
export type PublishAnswer = v.InferOutput<typeof PublishAnswerSchema>;
export type PreviewAnswer = v.InferOutput<typeof PreviewAnswerSchema>;
export type StatusAnswer = v.InferOutput<typeof StatusAnswerSchema>;

/**
 * The config's keys (mapping, filters, window, …) beside the calendar's id, name and feed: its
 * `url`, or its `sources` and no `url` (sources.ts says which).
 */
export type PublishRequest = CalendarConfig & {
  id: string;
  name: string;
  editToken?: string;
} & FeedWire;

/** The schemas of the server's answers, for the test that holds them to the server's own. */
export const answerSchemas = {
  feed: FeedAnswerSchema,
  mappingRender: MappingRenderSchema,
  templateRender: TemplateRenderSchema,
  publish: PublishAnswerSchema,
  preview: PreviewAnswerSchema,
  error: ErrorAnswerSchema,
  status: StatusAnswerSchema,
};

function malformed(): ApiError {
  return new ApiError(502, 'the server sent an answer this page does not understand');
}

function parseAnswer<T extends v.GenericSchema>(schema: T, value: unknown): v.InferOutput<T> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw malformed();
  return result.output;
}

export const parseFeedAnswer = (value: unknown): FeedAnswer => parseAnswer(FeedAnswerSchema, value);
export const parseMappingRender = (value: unknown): MappingRender => parseAnswer(MappingRenderSchema, value);
export const parseTemplateRender = (value: unknown): TemplateRender => parseAnswer(TemplateRenderSchema, value);
export const parsePublishAnswer = (value: unknown): PublishAnswer => parseAnswer(PublishAnswerSchema, value);
export const parsePreviewAnswer = (value: unknown): PreviewAnswer => parseAnswer(PreviewAnswerSchema, value);
/** Lenient inside (see health.ts): only an answer that is no JSON object is refused. */
export const parseStatusAnswer = (value: unknown): StatusAnswer => parseAnswer(StatusAnswerSchema, value);

export interface ErrorAnswer {
  message: string;
  field: string | null;
}

/**
 * A failed answer: the `error` and `field` of a JSON body, else its text (a proxy's page) with
 * no field. The field is read as sent, never recovered from the words.
 */
export function errorAnswer(status: number, body: string): ErrorAnswer {
  try {
    const answer = parseOrNull(ErrorAnswerSchema, JSON.parse(body));
    if (answer) return { message: answer.error, field: answer.field };
  } catch {
    // Not JSON: a proxy's page or plain text.
  }
  const text = body.trim();
  return { message: text !== '' && text.length <= 300 ? text : `the server answered with status ${status}`, field: null };
}

/** The message of a request that never reached the server (offline, or the server is down). */
export const UNREACHABLE = 'the server could not be reached';

async function call(path: string, init: RequestInit = {}): Promise<unknown> {
  let response: Response;
  try {
    const headers = new Headers(init.headers);
    headers.set('Accept', 'application/json');
    response = await fetch(path, { ...init, headers });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, UNREACHABLE);
  }
  if (!response.ok) {
    const { message, field } = errorAnswer(response.status, await response.text());
    throw new ApiError(response.status, message, field);
  }
  if (response.status === 204) return null;
  try {
    return (await response.json()) as unknown;
  } catch {
    throw malformed();
  }
}

const jsonInit = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export interface FeedOptions {
  offset?: number;
  limit?: number;
  /** Ask upstream again instead of reusing the server's recent copy (Refetch). */
  refresh?: boolean;
  /** 'content': the events with the UIDs the hosted feed gives them (`"uids": "content"`). */
  uids?: 'content';
}

// With a publish key set on the server, every call of the editor needs it (not only publishing).
const keyHeader = (publishKey: string | null): Record<string, string> => (publishKey ? { 'X-Publish-Key': publishKey } : {});

export async function fetchFeed(url: string, options: FeedOptions = {}, publishKey: string | null = null): Promise<FeedAnswer> {
  const query = new URLSearchParams({ url });
  if (options.offset) query.set('offset', String(options.offset));
  if (options.limit) query.set('limit', String(options.limit));
  if (options.refresh) query.set('refresh', 'true');
  if (options.uids) query.set('uids', options.uids);
  return parseFeedAnswer(await call(`/api/feed?${query.toString()}`, { headers: keyHeader(publishKey) }));
}

/** The merged feed of `sources` (POST /api/feed): as fetchFeed's answer, plus each source and each event's source. */
export async function fetchMergedFeed(
  sources: readonly FeedSource[],
  options: FeedOptions = {},
  publishKey: string | null = null,
  owner?: CalendarOwner,
): Promise<FeedAnswer> {
  const body = {
    sources,
    ...(owner ? { calendar: owner.id } : {}),
    ...(options.offset ? { offset: options.offset } : {}),
    ...(options.limit ? { limit: options.limit } : {}),
    ...(options.refresh ? { refresh: true } : {}),
    ...(options.uids ? { uids: options.uids } : {}),
  };
  return parseFeedAnswer(await call('/api/feed', jsonInit('POST', body, { ...keyHeader(publishKey), ...ownerHeader(owner) })));
}

// A saved login ("set") is opened for a read only with the calendar's edit token.
const ownerHeader = (owner: CalendarOwner | undefined): Record<string, string> => (owner ? { Authorization: `Bearer ${owner.token}` } : {});

/** The feed of a calendar: one address as always (GET), merged sources with POST. */
export function readFeed(wire: FeedWire, options: FeedOptions = {}, publishKey: string | null = null): Promise<FeedAnswer> {
  return 'url' in wire ? fetchFeed(wire.url, options, publishKey) : fetchMergedFeed(wire.sources, options, publishKey, wire.calendar);
}

export async function renderMapping(event: SampleEvent, mapping: Mapping, publishKey: string | null = null): Promise<MappingRender> {
  return parseMappingRender(await call('/api/render', jsonInit('POST', { event, mapping }, keyHeader(publishKey))));
}

export async function renderTemplate(event: SampleEvent, template: string, publishKey: string | null = null): Promise<TemplateRender> {
  return parseTemplateRender(await call('/api/render', jsonInit('POST', { event, template }, keyHeader(publishKey))));
}

/**
 * Counts, size and per-event decisions of the calendar's feed remapped with `config`: one address
 * beside the config as always, merged sources inside it (and no `url`).
 */
export async function previewConfig(wire: FeedWire, config: CalendarConfig, publishKey: string | null = null): Promise<PreviewAnswer> {
  const body =
    'url' in wire ? { url: wire.url, config } : { config: { ...config, sources: wire.sources }, ...(wire.calendar ? { calendar: wire.calendar.id } : {}) };
  const owner = 'url' in wire ? undefined : wire.calendar;
  return parsePreviewAnswer(await call('/api/preview', jsonInit('POST', body, { ...keyHeader(publishKey), ...ownerHeader(owner) })));
}

/** A CalDAV account's calendars (POST /api/caldav/calendars), for the editor to choose from. */
export async function findCaldavCalendars(request: { url: string; auth: GivenLogin }, publishKey: string | null = null): Promise<FoundCalendar[]> {
  return parseAnswer(FoundCalendarsSchema, await call('/api/caldav/calendars', jsonInit('POST', request, keyHeader(publishKey)))).calendars;
}

export async function publishCalendar(request: PublishRequest, publishKey: string | null): Promise<PublishAnswer> {
  return parsePublishAnswer(await call('/api/calendars', jsonInit('POST', request, keyHeader(publishKey))));
}

/** Takes a hosted calendar down; one that is already gone (404) counts as done. */
export async function unpublishCalendar(id: string, editToken: string, publishKey: string | null): Promise<void> {
  try {
    await call(`/api/calendars/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${editToken}`, ...keyHeader(publishKey) },
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return;
    throw error;
  }
}

const GoogleAddressSchema = record({ url: hostedAddress, count, max: count });
export type GoogleAddress = v.InferOutput<typeof GoogleAddressSchema>;

/** A second hosted address of calendar `id` (aliases: the same feed, which Google fetches at once). */
export async function makeGoogleAddress(id: string, editToken: string, publishKey: string | null): Promise<GoogleAddress> {
  const init = { method: 'POST', headers: { Authorization: `Bearer ${editToken}`, ...keyHeader(publishKey) } };
  return parseAnswer(GoogleAddressSchema, await call(`/api/calendars/${encodeURIComponent(id)}/aliases`, init));
}

/**
 * How a published calendar is doing: its source and the calendar apps polling it, and the
 * addresses made for Google. Needs the edit token or the site's key (either may be null, not
 * both); never asks for a key, as nobody pressed anything that calls for one.
 */
export async function fetchCalendarStatus(id: string, editToken: string | null, publishKey: string | null, signal?: AbortSignal): Promise<StatusAnswer> {
  const headers: Record<string, string> = { ...keyHeader(publishKey), ...(editToken ? { Authorization: `Bearer ${editToken}` } : {}) };
  return parseStatusAnswer(await call(`/api/calendars/${encodeURIComponent(id)}/status`, { headers, ...(signal ? { signal } : {}) }));
}
