// A calendar's feeds (issue "Merged calendars"): one address as before, or 2 to 10 sources merged
// into one calendar, each with an optional label (the owner's name for it) and prefix (put before
// the SUMMARY of each of its events). Pure: the rows the editor edits and their reducer, the
// checks, what is sent to the server and what is stored, and the names events are tagged with.
//
// One rule keeps every calendar made before byte-identical: a calendar whose only feed has neither
// a label nor a prefix is the plain `{ url }` shape, in storage and on the wire; `sources` is used
// for two feeds or more, and for a single feed that has a label or a prefix (they would otherwise
// be lost). Stored calendars with `sources` keep `url` too, set to the first source's address, so
// a page that predates sources still lists, opens and keeps the calendar (as its first feed).
import * as v from 'valibot';
import { isRecord } from '../lib/schema';
import { checkFeedUrl } from './feedUrl';
import {
  loginGiven,
  loginOfStored,
  loginProblem,
  loginReducer,
  loginToSend,
  loginToStore,
  sameLogin,
  type GivenLogin,
  type LoginAction,
  type LoginWire,
  type SourceLogin,
} from './sourceLogin';

export const MAX_SOURCES = 10;
/** The longest label or prefix the server takes, in characters. */
export const MAX_SOURCE_TEXT = 64;
/** The longest source address the server takes, in bytes (UTF-8). */
export const MAX_SOURCE_URL_BYTES = 2048;

export const SOURCES_FULL_TEXT = `A calendar can merge at most ${MAX_SOURCES} feeds: remove one to add another.`;

/** One source as the server takes it and `calendars:v1` keeps it. */
export interface FeedSource {
  url: string;
  prefix?: string;
  label?: string;
  /** A CalDAV calendar (read with a REPORT) rather than a feed. */
  kind?: 'caldav';
  /** Its login (sourceLogin.ts): in full on a read or publish that gives it, else "set". */
  auth?: LoginWire;
  /** The owner lets the login travel unencrypted over plain http. */
  plainHttp?: true;
}

/** What the calendar's feed is on the wire: one address, as before sources, or the sources. */
export type FeedWire = { url: string } | { sources: FeedSource[]; calendar?: CalendarOwner };

/** The calendar whose saved logins a read opens, with its edit token (only its owner has it). */
export interface CalendarOwner {
  id: string;
  token: string;
}

export type SourceInput = 'url' | 'label' | 'prefix' | 'auth';
/** The inputs of a row that are text. */
export type SourceText = Exclude<SourceInput, 'auth'>;

/** One feed as the editor edits it; `key` stays with the row when others are added or moved. */
export interface SourceRow {
  key: number;
  url: string;
  label: string;
  prefix: string;
  /** A CalDAV calendar (read with a REPORT) rather than a feed. */
  kind: 'feed' | 'caldav';
  /** Its login (absent: none), a CalDAV calendar's as a feed's. */
  login?: SourceLogin;
  /** Its login may travel over plain http (absent: no). */
  plainHttp?: boolean;
}

export interface SourcesState {
  rows: SourceRow[];
  /** Shown as a list of feeds (after "Add another feed", or opened with sources), else as one address. */
  listed: boolean;
  /**
   * The rows as they were when last committed (an input left or Enter pressed; add, remove and
   * move commit at once): the feed is read from these, so typing does not fetch at every key.
   */
  committed: SourceRow[];
  nextKey: number;
  /** What the server said of an input, by `${key}.${input}`, until that input changes. */
  serverErrors: Readonly<Record<string, string>>;
}

export type SourcesAction =
  | { type: 'add' }
  /** A CalDAV calendar chosen from an account's list: a row of its own, named by its name, with the login it was found with. */
  | { type: 'addCaldav'; url: string; label: string; auth: GivenLogin }
  | { type: 'remove'; key: number }
  | { type: 'move'; key: number; delta: -1 | 1 }
  | { type: 'set'; key: number; input: SourceText; value: string }
  /** A change of a row's login; all but typing commit at once. */
  | { type: 'login'; key: number; action: LoginAction }
  | { type: 'plainHttp'; key: number; value: boolean }
  /** A publish stored the logins given. */
  | { type: 'loginsSaved' }
  | { type: 'commit' }
  | { type: 'serverError'; key: number; input: SourceInput; message: string }
  /** Forgets what the server said of these inputs (of all, without `inputs`). */
  | { type: 'clearServerErrors'; inputs?: SourceInput[] };

const row = (key: number, source: Partial<FeedSource> = {}): SourceRow => ({
  key,
  url: source.url ?? '',
  label: source.label ?? '',
  prefix: source.prefix ?? '',
  kind: source.kind ?? 'feed',
  ...(source.auth === 'set' ? { login: loginOfStored(source.auth) } : {}),
  ...(source.plainHttp === true ? { plainHttp: true } : {}),
});

/** The sources of a calendar: its `sources` when it has them, else its one address. */
export function sourcesOf(calendar: { url: string; sources?: FeedSource[] }): FeedSource[] {
  return calendar.sources && calendar.sources.length > 0 ? calendar.sources : [{ url: calendar.url }];
}

/**
 * The editor's rows for a calendar opened at `url` (the address in the editor's link): a stored
 * calendar's sources when the link names its address, else that address alone (as before).
 */
export function initialSources(stored: { url: string; sources?: FeedSource[] } | null, url: string): SourcesState {
  const sources = stored && stored.url === url ? sourcesOf(stored) : [{ url }];
  const rows = sources.map((source, i) => row(i, source));
  // One feed whose only addition is a login opens as the one address it was (with its login).
  const [only] = stored?.sources ?? [];
  const loginOnly = stored?.sources?.length === 1 && only !== undefined && only.label === undefined && only.prefix === undefined && only.kind === undefined;
  const listed = Boolean(stored && stored.url === url && stored.sources && !loginOnly);
  return { rows, listed, committed: rows, nextKey: rows.length, serverErrors: {} };
}

const isPlain = (r: SourceRow) => r.label.trim() === '' && r.prefix === '' && r.kind === 'feed';
const sameRows = (a: readonly SourceRow[], b: readonly SourceRow[]) =>
  a.length === b.length &&
  a.every(
    (r, i) =>
      r.key === b[i]?.key &&
      r.url === b[i].url &&
      r.label === b[i].label &&
      r.prefix === b[i].prefix &&
      r.kind === b[i].kind &&
      sameLogin(r.login, b[i].login) &&
      Boolean(r.plainHttp) === Boolean(b[i].plainHttp),
  );
const errorKey = (key: number, input: SourceInput) => `${key}.${input}`;

function withoutErrors(errors: Readonly<Record<string, string>>, drop: (key: string) => boolean): Readonly<Record<string, string>> {
  const kept = Object.entries(errors).filter(([key]) => !drop(key));
  return kept.length === Object.keys(errors).length ? errors : Object.fromEntries(kept);
}

export function sourcesReducer(state: SourcesState, action: SourcesAction): SourcesState {
  switch (action.type) {
    case 'add': {
      if (state.rows.length >= MAX_SOURCES) return state;
      const rows = [...state.rows, row(state.nextKey)];
      return { ...state, rows, committed: rows, listed: true, nextKey: state.nextKey + 1 };
    }
    case 'addCaldav': {
      // Its login is a source's login like any other: sent with its reads, stored by the publish ("Login saved").
      const added: SourceRow = { ...row(state.nextKey), url: action.url, label: action.label, kind: 'caldav', login: loginGiven(action.auth) };
      // A calendar that has no address yet takes the chosen calendar as its one source.
      const kept = state.rows.filter((r) => r.url.trim() !== '' || state.rows.length > 1);
      if (kept.length >= MAX_SOURCES) return state;
      const rows = [...kept, added];
      return { ...state, rows, committed: rows, listed: true, nextKey: state.nextKey + 1 };
    }
    case 'remove': {
      // A calendar keeps at least one feed.
      if (state.rows.length <= 1 || !state.rows.some((r) => r.key === action.key)) return state;
      const rows = state.rows.filter((r) => r.key !== action.key);
      // Down to one plain feed: back to the one address (and the plain shape on the wire).
      const listed = !(rows.length === 1 && rows[0] && isPlain(rows[0]));
      const serverErrors = withoutErrors(state.serverErrors, (key) => key.startsWith(`${action.key}.`));
      return { ...state, rows, committed: rows, listed, serverErrors };
    }
    case 'move': {
      const from = state.rows.findIndex((r) => r.key === action.key);
      const to = from + action.delta;
      if (from < 0 || to < 0 || to >= state.rows.length) return state;
      const rows = [...state.rows];
      [rows[from], rows[to]] = [rows[to] as SourceRow, rows[from] as SourceRow];
      return { ...state, rows, committed: rows };
    }
    case 'set': {
      const at = state.rows.findIndex((r) => r.key === action.key);
      const current = state.rows[at];
      if (!current || current[action.input] === action.value) return state;
      const rows = state.rows.map((r, i) => (i === at ? { ...r, [action.input]: action.value } : r));
      const serverErrors = withoutErrors(state.serverErrors, (key) => key === errorKey(action.key, action.input));
      return { ...state, rows, serverErrors };
    }
    case 'commit':
      return sameRows(state.rows, state.committed) ? state : { ...state, committed: state.rows };
    case 'login': {
      const at = state.rows.findIndex((r) => r.key === action.key);
      const current = state.rows[at];
      if (!current) return state;
      const login = loginReducer(current.login ?? { state: 'none' }, action.action);
      if (login === current.login) return state;
      const rows = state.rows.map((r, i) => (i === at ? { ...r, login } : r));
      const serverErrors = withoutErrors(state.serverErrors, (key) => key === errorKey(action.key, 'auth'));
      return { ...state, rows, committed: action.action.type === 'set' ? state.committed : rows, serverErrors };
    }
    case 'plainHttp': {
      const rows = state.rows.map((r) => (r.key === action.key ? { ...r, plainHttp: action.value } : r));
      return { ...state, rows, committed: rows };
    }
    case 'loginsSaved': {
      const saved = (rows: SourceRow[]) => rows.map((r) => (r.login ? { ...r, login: loginReducer(r.login, { type: 'saved' }) } : r));
      return { ...state, rows: saved(state.rows), committed: saved(state.committed) };
    }
    case 'serverError':
      if (!state.rows.some((r) => r.key === action.key)) return state;
      return { ...state, serverErrors: { ...state.serverErrors, [errorKey(action.key, action.input)]: action.message } };
    case 'clearServerErrors': {
      const inputs = action.inputs;
      const serverErrors = withoutErrors(state.serverErrors, (key) => !inputs || inputs.some((input) => key.endsWith(`.${input}`)));
      return serverErrors === state.serverErrors ? state : { ...state, serverErrors };
    }
  }
}

/** What the server said of a row's input, if anything. */
export const serverError = (state: SourcesState, key: number, input: SourceInput): string | undefined => state.serverErrors[errorKey(key, input)];

// --- Checks -------------------------------------------------------------------------------------

export interface SourceProblem {
  key: number;
  input: SourceInput;
  message: string;
}

// Control characters (C0, DEL and C1): the server refuses them in a label or prefix.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function textProblem(value: string): string | null {
  // Counted in code points, as the server counts characters.
  const length = Array.from(value).length;
  if (length > MAX_SOURCE_TEXT) return `at most ${MAX_SOURCE_TEXT} characters (this has ${length})`;
  if (CONTROL.test(value)) return 'no tabs, line breaks or other control characters';
  return null;
}

/**
 * What the editor can tell is wrong with the rows before asking the server. A row without an
 * address is no problem: it is left out (see `cleanRows`).
 */
export function sourceProblems(rows: readonly SourceRow[]): SourceProblem[] {
  const problems: SourceProblem[] = [];
  const seen = new Map<string, number>();
  rows.forEach((r, i) => {
    const url = r.url.trim();
    if (url !== '') {
      const check = checkFeedUrl(url);
      const first = seen.get(url);
      if (!check.ok) problems.push({ key: r.key, input: 'url', message: check.reason });
      else if (new TextEncoder().encode(url).length > MAX_SOURCE_URL_BYTES)
        problems.push({ key: r.key, input: 'url', message: `The address is too long: a feed's address takes at most ${MAX_SOURCE_URL_BYTES} bytes.` });
      else if (first !== undefined) problems.push({ key: r.key, input: 'url', message: `This feed is already in the list (feed ${first + 1}).` });
      else seen.set(url, i);
    }
    const label = textProblem(r.label.trim());
    if (label) problems.push({ key: r.key, input: 'label', message: `The label takes ${label}.` });
    const prefix = textProblem(r.prefix);
    if (prefix) problems.push({ key: r.key, input: 'prefix', message: `The prefix takes ${prefix}.` });
    const login = loginProblem(r.login);
    if (login) problems.push({ key: r.key, input: 'auth', message: login.message });
  });
  return problems;
}

// --- What is sent and stored --------------------------------------------------------------------

/**
 * A prefix as it goes before a title: followed by a space, so "[Lab]" (as the placeholder shows
 * it) gives "[Lab] Maker meeting", not "[Lab]Maker meeting". One that ends in white space already,
 * or has no room for another character, is left as it is.
 */
export function spacedPrefix(prefix: string): string {
  if (prefix === '' || /\s$/u.test(prefix) || Array.from(prefix).length >= MAX_SOURCE_TEXT) return prefix;
  return `${prefix} `;
}

/** A row as the server takes it: the address trimmed, the label trimmed, the prefix spaced, empty parts left out. */
function toSource(r: SourceRow, withLabel = true, store = false): FeedSource {
  const label = r.label.trim();
  // A stored calendar keeps "set" at most; a read or publish sends what was given.
  const auth = store ? loginToStore(r.login) : loginToSend(r.login);
  return {
    url: r.url.trim(),
    ...(r.prefix !== '' ? { prefix: spacedPrefix(r.prefix) } : {}),
    ...(withLabel && label !== '' ? { label } : {}),
    ...(r.kind === 'caldav' ? { kind: r.kind } : {}),
    ...(auth !== undefined ? { auth } : {}),
    ...(auth !== undefined && r.plainHttp ? { plainHttp: true as const } : {}),
  };
}

/** The rows that name a feed (a row whose address is blank is nothing yet, and left out). */
export const cleanRows = (rows: readonly SourceRow[]): SourceRow[] => rows.filter((r) => r.url.trim() !== '');

/**
 * The wire form of some sources: the plain `{ url }` for one without label, prefix or login (a
 * feed with a login is a calendar of one source).
 */
export function wireOf(sources: readonly FeedSource[]): FeedWire {
  const [only] = sources;
  const plain = only && only.prefix === undefined && only.label === undefined && only.kind === undefined && only.auth === undefined;
  if (sources.length === 1 && only && plain) return { url: only.url };
  return { sources: [...sources] };
}

/** A request's feed: the wire and, for each source in it, the key of the row it came from. */
export interface FeedTarget {
  wire: FeedWire;
  keys: number[];
}

/** What Save, Build & Host and the fingerprint send: every row with an address; null when none has one. */
export function publishTarget(rows: readonly SourceRow[]): FeedTarget | null {
  const clean = cleanRows(rows);
  if (clean.length === 0) return null;
  return { wire: wireOf(clean.map((r) => toSource(r))), keys: clean.map((r) => r.key) };
}

/**
 * What the editor reads its feed and preview from: the committed rows with an address, without
 * labels (they change nothing the server does with a feed). Of several, those the editor can tell
 * are wrong are left out (they are marked at their input, and the others are still read); one
 * alone is sent as it is, so the server says what is wrong with it, as it did before sources.
 * Null when none is left.
 */
export function readTarget(committed: readonly SourceRow[]): FeedTarget | null {
  const clean = cleanRows(committed);
  const problems = clean.length > 1 ? sourceProblems(committed).filter((p) => p.input !== 'label') : [];
  const usable = clean.filter((r) => !problems.some((p) => p.key === r.key));
  if (usable.length === 0) return null;
  return { wire: wireOf(usable.map((r) => toSource(r, false))), keys: usable.map((r) => r.key) };
}

/**
 * A read's target naming the calendar and its edit token when one of its sources reads with the
 * saved login ("set"): the server opens a saved login only for the calendar's owner.
 */
export function withOwner(target: FeedTarget | null, id: string, token: string | undefined): FeedTarget | null {
  if (!target || !token || 'url' in target.wire || !target.wire.sources.some((s) => s.auth === 'set')) return target;
  return { ...target, wire: { ...target.wire, calendar: { id, token } } };
}

/** The stored form: `url` always (the first source's address), `sources` only as `wireOf` has them. */
export function storedFeed(rows: readonly SourceRow[]): { url: string; sources?: FeedSource[] } {
  const clean = cleanRows(rows);
  if (clean.length === 0) return { url: '' };
  const wire = wireOf(clean.map((r) => toSource(r, true, true)));
  return 'url' in wire ? { url: wire.url } : { url: wire.sources[0]?.url ?? '', sources: wire.sources };
}

/** A calendar's `sources` as `calendars:v1` keeps them: 1 to 10 entries with an address. */
export const StoredSourcesSchema = v.pipe(
  v.array(v.unknown()),
  v.transform((items) =>
    items.flatMap((item): FeedSource[] => {
      if (!isRecord(item) || typeof item.url !== 'string' || item.url.trim() === '') return [];
      const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
      const prefix = text(item.prefix);
      const label = text(item.label);
      // Of a login, only "set" is ever kept.
      const login = item.auth === 'set' ? { auth: 'set' as const, ...(item.plainHttp === true ? { plainHttp: true as const } : {}) } : {};
      const kind = item.kind === 'caldav' ? { kind: 'caldav' as const } : {};
      return [{ url: item.url, ...(prefix !== undefined ? { prefix } : {}), ...(label !== undefined ? { label } : {}), ...kind, ...login }];
    }),
  ),
  v.check((sources) => sources.length >= 1 && sources.length <= MAX_SOURCES),
);

// --- Server answers about sources ---------------------------------------------------------------

/** `sources[2].url` → index 2, input `url`; `sources[2]` → input `url`; null for any other path. */
export function parseSourceField(field: string | null): { index: number; input: SourceInput } | null {
  const match = field === null ? null : /^sources\[(\d+)\](?:\.(url|label|prefix|auth))?$/.exec(field);
  if (!match) return null;
  return { index: Number(match[1]), input: (match[2] as SourceInput | undefined) ?? 'url' };
}

/**
 * The row a server's field is about, for a request made with `target`, and the field renumbered
 * to the editor's rows (a row left out of the request shifts the server's numbering).
 */
export function rowOfField(
  field: string | null,
  target: FeedTarget | null,
  rows: readonly SourceRow[],
): { key: number; input: SourceInput; field: string } | null {
  const parsed = parseSourceField(field);
  // A feed read alone (its one address) is source 0 when its login is what failed.
  const alone = parsed !== null && parsed.index === 0 && parsed.input === 'auth';
  if (!parsed || !target || !('sources' in target.wire || alone)) return null;
  const key = target.keys[parsed.index];
  const at = rows.findIndex((r) => r.key === key);
  if (key === undefined || at < 0) return null;
  return { key, input: parsed.input, field: `sources[${at}].${parsed.input}` };
}

// --- Names --------------------------------------------------------------------------------------

/** The host of a feed's address ('' when it has none). */
export function feedHost(url: string): string {
  try {
    return new URL(url.trim()).host;
  } catch {
    return '';
  }
}

/**
 * What each row is called where its events are tagged: its label, else its prefix, else its
 * feed's host, else 'Feed N'; two rows called alike get their number too.
 */
export function sourceNames(rows: readonly SourceRow[]): string[] {
  const base = rows.map((r, i) => r.label.trim() || r.prefix.trim() || feedHost(r.url) || `Feed ${i + 1}`);
  return base.map((name, i) => (base.indexOf(name) !== base.lastIndexOf(name) ? `${name} (feed ${i + 1})` : name));
}

/** Where an event of a feed page came from: the row's key, or undefined when the answer does not say. */
export function eventSourceKey(eventSources: readonly number[], keys: readonly number[], indexInPage: number): number | undefined {
  // One source read on its own: every event is its.
  if (keys.length === 1) return keys[0];
  const source = eventSources[indexInPage];
  return source === undefined ? undefined : keys[source];
}

/** How one source did in the last read (a merged answer's `sources[i]`, or a one-address answer). */
export interface SourceReport {
  url: string;
  eventCount: number;
  sizeBytes: number;
  fetchedAt: string | null;
  stale: string | null;
  error: string | null;
}

/** The report of row `key` in a feed read from the rows `keys`; undefined when it was not read. */
export function reportOfRow(
  feed: { url: string; eventCount: number; sizeBytes: number; fetchedAt: string; stale: string | null; sources: readonly SourceReport[] },
  keys: readonly number[],
  key: number,
): SourceReport | undefined {
  const at = keys.indexOf(key);
  if (at < 0) return undefined;
  if (feed.sources.length > 0) return feed.sources[at];
  // One address read on its own: the feed is all its.
  if (keys.length !== 1) return undefined;
  return { url: feed.url, eventCount: feed.eventCount, sizeBytes: feed.sizeBytes, fetchedAt: feed.fetchedAt || null, stale: feed.stale, error: null };
}
