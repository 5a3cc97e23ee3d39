// Properties beyond the five templates (README "Calendar options", `properties`) and UIDs that
// hold still (`uids`). Pure: the shapes and their stored schema, the plain-word controls' rules
// ("Show as free", a category, a colour) over the raw templates, the editor's own checks at the
// paths the server names (crates/engine/src/config/properties.rs states the same rules), and the
// words for a feed whose UIDs changed.
import * as v from 'valibot';
import { isRecord } from '../lib/schema';

export const EVENT_PROPERTIES = ['TRANSP', 'CATEGORIES', 'CLASS', 'URL', 'COLOR'] as const;
export type EventProperty = (typeof EVENT_PROPERTIES)[number];
/** Each key a template in the mapping's syntax; an absent key leaves the event's own property. */
export type CalendarProperties = Partial<Record<EventProperty, string>>;

/** What each raw template sets, in words (its label beside the property's name). */
export const PROPERTY_WORDS: Record<EventProperty, string> = {
  TRANSP: 'Busy or free: OPAQUE or TRANSPARENT',
  CATEGORIES: 'Categories, separated by commas',
  CLASS: 'PUBLIC, PRIVATE or CONFIDENTIAL',
  URL: 'A link for the event',
  COLOR: 'A colour name, such as teal',
};

/** The server's bounds (MAX_TEMPLATE_BYTES, MAX_URL_BYTES, MAX_CATEGORIES). */
export const MAX_PROPERTY_TEMPLATE_BYTES = 4096;
export const MAX_URL_BYTES = 2048;
export const MAX_CATEGORIES = 32;

/** The CSS colour names RFC 7986 allows for COLOR. */
export const CSS_COLOURS = [
  'aliceblue',
  'antiquewhite',
  'aqua',
  'aquamarine',
  'azure',
  'beige',
  'bisque',
  'black',
  'blanchedalmond',
  'blue',
  'blueviolet',
  'brown',
  'burlywood',
  'cadetblue',
  'chartreuse',
  'chocolate',
  'coral',
  'cornflowerblue',
  'cornsilk',
  'crimson',
  'cyan',
  'darkblue',
  'darkcyan',
  'darkgoldenrod',
  'darkgray',
  'darkgreen',
  'darkgrey',
  'darkkhaki',
  'darkmagenta',
  'darkolivegreen',
  'darkorange',
  'darkorchid',
  'darkred',
  'darksalmon',
  'darkseagreen',
  'darkslateblue',
  'darkslategray',
  'darkslategrey',
  'darkturquoise',
  'darkviolet',
  'deeppink',
  'deepskyblue',
  'dimgray',
  'dimgrey',
  'dodgerblue',
  'firebrick',
  'floralwhite',
  'forestgreen',
  'fuchsia',
  'gainsboro',
  'ghostwhite',
  'gold',
  'goldenrod',
  'gray',
  'green',
  'greenyellow',
  'grey',
  'honeydew',
  'hotpink',
  'indianred',
  'indigo',
  'ivory',
  'khaki',
  'lavender',
  'lavenderblush',
  'lawngreen',
  'lemonchiffon',
  'lightblue',
  'lightcoral',
  'lightcyan',
  'lightgoldenrodyellow',
  'lightgray',
  'lightgreen',
  'lightgrey',
  'lightpink',
  'lightsalmon',
  'lightseagreen',
  'lightskyblue',
  'lightslategray',
  'lightslategrey',
  'lightsteelblue',
  'lightyellow',
  'lime',
  'limegreen',
  'linen',
  'magenta',
  'maroon',
  'mediumaquamarine',
  'mediumblue',
  'mediumorchid',
  'mediumpurple',
  'mediumseagreen',
  'mediumslateblue',
  'mediumspringgreen',
  'mediumturquoise',
  'mediumvioletred',
  'midnightblue',
  'mintcream',
  'mistyrose',
  'moccasin',
  'navajowhite',
  'navy',
  'oldlace',
  'olive',
  'olivedrab',
  'orange',
  'orangered',
  'orchid',
  'palegoldenrod',
  'palegreen',
  'paleturquoise',
  'palevioletred',
  'papayawhip',
  'peachpuff',
  'peru',
  'pink',
  'plum',
  'powderblue',
  'purple',
  'red',
  'rosybrown',
  'royalblue',
  'saddlebrown',
  'salmon',
  'sandybrown',
  'seagreen',
  'seashell',
  'sienna',
  'silver',
  'skyblue',
  'slateblue',
  'slategray',
  'slategrey',
  'snow',
  'springgreen',
  'steelblue',
  'tan',
  'teal',
  'thistle',
  'tomato',
  'turquoise',
  'violet',
  'wheat',
  'white',
  'whitesmoke',
  'yellow',
  'yellowgreen',
] as const;

const isProperty = (key: string): key is EventProperty => (EVENT_PROPERTIES as readonly string[]).includes(key);

/** Stored properties (calendars:v1, `options.properties`): text values of the five keys; none reads as absent. */
export const StoredPropertiesSchema = v.fallback(
  v.optional(
    v.pipe(
      v.unknown(),
      v.transform((value): CalendarProperties | undefined => {
        if (!isRecord(value)) return undefined;
        const kept = Object.entries(value).filter((entry): entry is [EventProperty, string] => isProperty(entry[0]) && typeof entry[1] === 'string');
        return kept.length > 0 ? Object.fromEntries(kept) : undefined;
      }),
    ),
  ),
  undefined,
);

/** `properties` with `key` set to `template`, or without it (`undefined`); none left is `undefined`. */
export function withProperty(properties: CalendarProperties | undefined, key: EventProperty, template: string | undefined): CalendarProperties | undefined {
  const next: CalendarProperties = {};
  for (const k of EVENT_PROPERTIES) {
    const value = k === key ? template : properties?.[k];
    if (value !== undefined) next[k] = value;
  }
  return Object.keys(next).length > 0 ? next : undefined;
}

// --- The plain-word controls ---------------------------------------------------------------------

/** "Show as free": every event TRANSP:TRANSPARENT, so calendar apps do not count it as busy. */
export const showsAsFree = (p: CalendarProperties | undefined) => p?.TRANSP?.trim().toUpperCase() === 'TRANSPARENT';

export const withShowAsFree = (p: CalendarProperties | undefined, on: boolean) => withProperty(p, 'TRANSP', on ? 'TRANSPARENT' : undefined);

/** The category the plain field adds to each event's own, read back from `${CATEGORIES},Name`. */
const ADDED_CATEGORY = /^\$\{CATEGORIES\},(.*)$/;

/**
 * The category the plain field shows: '' when none is added, null when CATEGORIES is a template of
 * another shape (then only the raw template edits it).
 */
export function categoryOf(p: CalendarProperties | undefined): string | null {
  const template = p?.CATEGORIES;
  if (template === undefined) return '';
  const added = ADDED_CATEGORY.exec(template);
  return added && !added[1]?.includes('${') ? (added[1] ?? '') : null;
}

/** The category `name` added to each event's own categories; blank removes it. */
export function withCategory(p: CalendarProperties | undefined, name: string): CalendarProperties | undefined {
  return withProperty(p, 'CATEGORIES', name.trim() === '' ? undefined : `\${CATEGORIES},${name}`);
}

/** The colour the select shows: '' for none, or a template that is not one name (shown as is in the raw field). */
export const colourOf = (p: CalendarProperties | undefined) => p?.COLOR?.trim().toLowerCase() ?? '';

export const withColour = (p: CalendarProperties | undefined, name: string) => withProperty(p, 'COLOR', name === '' ? undefined : name);

// --- Checks ---------------------------------------------------------------------------------------

const ONE_OF: Partial<Record<EventProperty, readonly string[]>> = {
  TRANSP: ['OPAQUE', 'TRANSPARENT'],
  CLASS: ['PUBLIC', 'PRIVATE', 'CONFIDENTIAL'],
};

/** Why a constant value (a template without tokens) cannot be `key`, or null when it can. */
export function valueProblem(key: EventProperty, value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  const allowed = ONE_OF[key];
  if (allowed) return allowed.includes(trimmed.toUpperCase()) ? null : `one of ${allowed.join(', ')}`;
  if (key === 'COLOR')
    return (CSS_COLOURS as readonly string[]).includes(trimmed.toLowerCase()) ? null : 'a CSS colour name such as teal, crimson or royalblue';
  if (key === 'URL') {
    const ok = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(trimmed) && !/[\s\p{Cc}]/u.test(trimmed) && new TextEncoder().encode(trimmed).length <= MAX_URL_BYTES;
    return ok ? null : `an address such as https://example.org/event, without spaces, at most ${MAX_URL_BYTES} bytes`;
  }
  const parts = new Set(
    trimmed
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c !== ''),
  );
  return parts.size > MAX_CATEGORIES ? `at most ${MAX_CATEGORIES} categories` : null;
}

/** The editor's checks, at the paths the server names (`properties.COLOR`). */
export function checkProperties(p: CalendarProperties | undefined): { path: string; message: string }[] {
  if (!p) return [];
  return EVENT_PROPERTIES.flatMap((key) => {
    const template = p[key];
    if (template === undefined) return [];
    const path = `properties.${key}`;
    if (new TextEncoder().encode(template).length > MAX_PROPERTY_TEMPLATE_BYTES) return [{ path, message: `longer than ${MAX_PROPERTY_TEMPLATE_BYTES} bytes` }];
    // A template with tokens is judged per event by the server (a value that is not valid leaves the event's own).
    if (template.includes('${')) return [];
    const problem = valueProblem(key, template);
    return problem ? [{ path, message: `"${template.trim()}" is not ${problem}` }] : [];
  });
}

// --- UIDs that hold still -------------------------------------------------------------------------

export type UidMode = 'content';

/** What the server says of a feed whose last change brought most events back under new UIDs. */
export interface UidsChanged {
  at: string;
  events: number;
  renamed: number;
}

export const UIDS_BUTTON = 'Give events UIDs made from their content';
export const UIDS_UNDO_BUTTON = 'Use the feed’s own UIDs';
export const UIDS_ON_TEXT =
  'Events get UIDs made from their content (their feed, start, title and repeat rule), so changes you make by hand and kept past events hold on to them when the feed gives new UIDs at every fetch.';

/** The notice for a feed whose UIDs changed (`label`: which feed of several, or null for the only one). */
export function uidsChangedText(changed: UidsChanged, label: string | null): string {
  const of = `${changed.renamed.toLocaleString('en')} of ${changed.events.toLocaleString('en')} events`;
  const feed = label === null ? 'this feed' : label;
  return `When ${feed} last changed, ${of} came back under new UIDs (the IDs calendar apps, your changes by hand and kept past events know events by). Events can get UIDs made from their content instead.`;
}

/**
 * The feeds of a read whose UIDs changed: the one address (label null), or each source of several
 * named by `label` (its position in the read).
 */
export function changedFeeds(
  feed: { uidsChanged: UidsChanged | null; sources: readonly { uidsChanged: UidsChanged | null }[] } | null,
  label: (index: number) => string,
): { label: string | null; changed: UidsChanged }[] {
  if (!feed) return [];
  if (feed.sources.length === 0) return feed.uidsChanged ? [{ label: null, changed: feed.uidsChanged }] : [];
  return feed.sources.flatMap((s, i) => (s.uidsChanged ? [{ label: label(i), changed: s.uidsChanged }] : []));
}
