// Whether the hosted feed is what the editor shows: Build & Host keeps a fingerprint of what it
// published (name, address or sources, mapping and options) with the calendar, and the banner
// compares the editor's current fingerprint with it.
import type { Mapping } from './calendar';
import { buildConfig, type CalendarOptions } from './options';
import type { FeedWire } from './sources';

/** JSON with object keys sorted, so equal configs give equal text whatever order they were built in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

/**
 * What a publish of this calendar would send, as comparable text. A calendar of one plain address
 * gives the text it always gave, so one published before sources still reads as live.
 */
export function publishFingerprint(calendar: { name: string } & FeedWire, mapping: Mapping, options: CalendarOptions): string {
  // A login is in it only as "set": the fingerprint is kept in storage, a password never is, and a
  // login given then stored is the same publish.
  const feed =
    'url' in calendar ? { url: calendar.url } : { sources: calendar.sources.map((s) => (s.auth === undefined ? s : { ...s, auth: 'set' as const })) };
  return stableJson({ name: calendar.name, ...feed, config: buildConfig(mapping, options) });
}

/** `unknown`: published before fingerprints were kept (or elsewhere), so the editor cannot tell. */
export type LiveState = 'live' | 'changed' | 'unknown';

export function liveState(published: string | undefined, current: string): LiveState {
  if (!published) return 'unknown';
  return published === current ? 'live' : 'changed';
}

/** The banner's line for each state (added to the spec's 'Hosted:' banner). */
export const LIVE_TEXT: Record<LiveState, string> = {
  live: 'The live feed matches this editor.',
  changed: 'You have changes that are not live yet: Build & Host to update.',
  unknown: 'Changed the mapping? Build & Host again to update the hosted feed.',
};
