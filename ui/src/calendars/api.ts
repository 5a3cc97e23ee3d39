// The server calls of the calendar tool (src/publish/api.rs): the feed as the editor sees it, the
// preview render, publishing and unpublishing. Answers are checked before use; failures become
// an ApiError carrying the HTTP status and the server's own words.
import { MAPPING_FIELDS, type Mapping, type MappingField } from './calendar';
import type { SampleEvent } from './samples';

export class ApiError extends Error {
  /** 0 when the server could not be reached. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

export interface FeedAnswer {
  url: string;
  events: SampleEvent[];
  eventCount: number;
  offset: number;
  sizeBytes: number;
  warnings: string[];
  warningCount: number;
  fetchedAt: string;
  /** Set when upstream failed and an older copy is shown: why. */
  stale: string | null;
}

export interface TemplateError {
  field: string;
  position: number;
  message: string;
}

export interface MappingRender {
  fields: Partial<Record<MappingField, string>>;
  errors: TemplateError[];
}

export interface TemplateRender {
  result: string;
  errors: TemplateError[];
}

export interface PublishRequest {
  id: string;
  name: string;
  url: string;
  mapping: Mapping;
  editToken?: string;
}

export interface PublishAnswer {
  hostedUrl: string;
  /** Only on the first publish of an id. */
  editToken: string | null;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const str = (value: unknown) => (typeof value === 'string' ? value : '');

function malformed(): ApiError {
  return new ApiError(502, 'the server sent an answer this page does not understand');
}

function parseEvent(value: unknown): SampleEvent {
  const event: SampleEvent = {};
  if (!isObject(value)) return event;
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') event[key] = v;
  return event;
}

function parseErrors(value: unknown): TemplateError[] {
  if (!Array.isArray(value)) return [];
  return (value as unknown[]).filter(isObject).map((e) => ({
    field: str(e.field),
    position: num(e.position),
    message: str(e.message),
  }));
}

export function parseFeedAnswer(value: unknown): FeedAnswer {
  if (!isObject(value) || !Array.isArray(value.events)) throw malformed();
  const warnings = Array.isArray(value.warnings) ? (value.warnings as unknown[]).filter((w) => typeof w === 'string') : [];
  return {
    url: str(value.url),
    events: (value.events as unknown[]).map(parseEvent),
    eventCount: num(value.eventCount),
    offset: num(value.offset),
    sizeBytes: num(value.sizeBytes),
    warnings,
    warningCount: Math.max(num(value.warningCount), warnings.length),
    fetchedAt: str(value.fetchedAt),
    stale: typeof value.stale === 'string' ? value.stale : null,
  };
}

export function parseMappingRender(value: unknown): MappingRender {
  if (!isObject(value) || !isObject(value.fields)) throw malformed();
  const fields: Partial<Record<MappingField, string>> = {};
  for (const field of MAPPING_FIELDS) {
    const rendered = value.fields[field];
    if (typeof rendered === 'string') fields[field] = rendered;
  }
  return { fields, errors: parseErrors(value.errors) };
}

export function parseTemplateRender(value: unknown): TemplateRender {
  if (!isObject(value) || typeof value.result !== 'string') throw malformed();
  return { result: value.result, errors: parseErrors(value.errors) };
}

export function parsePublishAnswer(value: unknown): PublishAnswer {
  if (!isObject(value) || typeof value.hostedUrl !== 'string' || value.hostedUrl === '') throw malformed();
  return {
    hostedUrl: value.hostedUrl,
    editToken: typeof value.editToken === 'string' && value.editToken !== '' ? value.editToken : null,
  };
}

/** The server's words for a failed answer: the `error` of a JSON body, else its text. */
export function errorText(status: number, body: string): string {
  try {
    const value: unknown = JSON.parse(body);
    if (isObject(value) && typeof value.error === 'string' && value.error !== '') return value.error;
  } catch {
    // Not JSON: a proxy's page or plain text.
  }
  const text = body.trim();
  return text !== '' && text.length <= 300 ? text : `the server answered with status ${status}`;
}

async function call(path: string, init: RequestInit = {}): Promise<unknown> {
  let response: Response;
  try {
    const headers = new Headers(init.headers);
    headers.set('Accept', 'application/json');
    response = await fetch(path, { ...init, headers });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'the server could not be reached');
  }
  if (!response.ok) throw new ApiError(response.status, errorText(response.status, await response.text()));
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
}

// With a publish key set on the server, every call of the editor needs it (not only publishing).
const keyHeader = (publishKey: string | null): Record<string, string> =>
  publishKey ? { 'X-Publish-Key': publishKey } : {};

export async function fetchFeed(url: string, options: FeedOptions = {}, publishKey: string | null = null): Promise<FeedAnswer> {
  const query = new URLSearchParams({ url });
  if (options.offset) query.set('offset', String(options.offset));
  if (options.limit) query.set('limit', String(options.limit));
  if (options.refresh) query.set('refresh', 'true');
  return parseFeedAnswer(await call(`/api/feed?${query.toString()}`, { headers: keyHeader(publishKey) }));
}

export async function renderMapping(event: SampleEvent, mapping: Mapping, publishKey: string | null = null): Promise<MappingRender> {
  return parseMappingRender(await call('/api/render', jsonInit('POST', { event, mapping }, keyHeader(publishKey))));
}

export async function renderTemplate(event: SampleEvent, template: string, publishKey: string | null = null): Promise<TemplateRender> {
  return parseTemplateRender(await call('/api/render', jsonInit('POST', { event, template }, keyHeader(publishKey))));
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
