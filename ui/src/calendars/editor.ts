// The calendar editor's state machine (SPEC.md 2, 4, 8): the mapping being edited, the feeds it
// is made of (sources.ts), the feed and its samples, where the calendar is hosted, and what is
// under way. Pure: the screen makes the requests and shows the dialogs, then tells the reducer
// what came back.
import type { FeedAnswer, PublishAnswer, PublishRequest } from './api';
import { defaultMapping, type Mapping, type MappingField, type SavedCalendar } from './calendar';
import { buildConfig, emptyOptions, isEmptyOptions, newCalendarOptions, optionsReducer, type CalendarOptions, type OptionsAction } from './options';
import { stableJson } from './live';
import { firstSample, withPage, type Page, type Samples } from './samples';
import {
  initialSources,
  publishTarget,
  readTarget,
  sourcesReducer,
  storedFeed,
  type FeedTarget,
  type FeedWire,
  type SourcesAction,
  type SourcesState,
} from './sources';

export interface Hosting {
  hostedUrl?: string;
  editToken?: string;
  /** What the live feed was built from (see live.ts); absent when not known. */
  publishedConfig?: string;
}

export interface EditorState {
  mapping: Mapping;
  /** The feeds the calendar is made of: one address, or sources merged. */
  sources: SourcesState;
  /** Filters, window, time zones, alarms, privacy. */
  options: CalendarOptions;
  hosting: Hosting;
  /** The last feed page the server sent; null before the first. */
  feed: FeedAnswer | null;
  /**
   * What the shown feed was read from: its wire (what the preview of its decisions must read) and
   * the key of the source row each of its sources came from (sources.ts's FeedTarget).
   */
  feedTarget: FeedTarget | null;
  samples: Samples | null;
  /** The whole feed is being read (on opening, or Refetch). */
  loading: boolean;
  /** Another page of sample events is being read. */
  pageLoading: boolean;
  publishing: boolean;
  unpublishing: boolean;
  /** The sample field whose regex dialog is open. */
  regexField: string | null;
  /** The last feed request never reached the server (offline): the editor says so inline. */
  unreachable: boolean;
  /** The template last focused: tokens insert there. */
  lastFocused: MappingField | null;
  /**
   * What the saved list holds of this calendar, as `editorContent` says it: the editor has unsaved
   * changes while its own content differs. Null for a calendar never saved.
   */
  saved: string | null;
}

export type EditorAction =
  | { type: 'refetch' }
  /** `target`: what the feed was read from. */
  | { type: 'feedLoaded'; answer: FeedAnswer; target: FeedTarget }
  | { type: 'feedFailed'; unreachable?: boolean }
  | { type: 'showSamples'; samples: Samples }
  | { type: 'pageRequested' }
  | { type: 'pageLoaded'; answer: FeedAnswer; target: FeedTarget; index: number }
  | { type: 'sources'; action: SourcesAction }
  | { type: 'pageFailed'; unreachable?: boolean }
  | { type: 'setTemplate'; field: MappingField; value: string }
  | { type: 'options'; action: OptionsAction }
  | { type: 'focusField'; field: MappingField }
  | { type: 'openRegex'; field: string }
  | { type: 'closeRegex' }
  | { type: 'publishStarted' }
  /** `answer` null: cancelled or failed, the hosting stays as it was. */
  | { type: 'publishEnded'; answer: PublishAnswer | null; publishedConfig?: string }
  | { type: 'unpublishStarted' }
  | { type: 'unpublishEnded'; done: boolean }
  /** The calendar as edited is now what the list holds (Save, or the save before Build & Host). */
  | { type: 'saved' }
  /**
   * Starts the editing over from `state` (Discard changes): the feed shown stays while the new
   * state reads the same feeds, and the hosting and the saved calendar stay as they are.
   */
  | { type: 'restart'; state: EditorState };

/**
 * A freshly opened editor at the feed address `url` (its link's): the stored mapping, sources and
 * hosting (if any), and the feed on its way.
 */
export function initialEditorState(stored: SavedCalendar | null, url: string = stored?.url ?? ''): EditorState {
  const state = openedAt(stored, url);
  // What the list holds is the calendar at its own address (the link may name another).
  const saved = stored ? editorContent(stored.url === url ? state : openedAt(stored, stored.url)) : null;
  return { ...state, saved };
}

function openedAt(stored: SavedCalendar | null, url: string): EditorState {
  const sources = initialSources(stored, url);
  return {
    mapping: stored?.mapping ?? defaultMapping(),
    sources,
    // A calendar saved before options existed keeps its behaviour; a new one repairs time zones.
    options: stored ? (stored.options ?? emptyOptions()) : newCalendarOptions(),
    hosting: { hostedUrl: stored?.hostedUrl, editToken: stored?.editToken, publishedConfig: stored?.publishedConfig },
    feed: null,
    feedTarget: null,
    samples: null,
    // Nothing to read (no usable address): nothing is loading.
    loading: readTarget(sources.committed) !== null,
    pageLoading: false,
    publishing: false,
    unpublishing: false,
    regexField: null,
    unreachable: false,
    lastFocused: null,
    saved: null,
  };
}

/**
 * What Save would keep of the calendar as edited (its feeds, mapping and options; not its name,
 * which the link holds, nor its hosting, which is kept at once), as comparable text.
 */
export function editorContent(state: Pick<EditorState, 'sources' | 'mapping' | 'options'>): string {
  return stableJson({
    ...storedFeed(state.sources.rows),
    mapping: state.mapping,
    options: isEmptyOptions(state.options) ? undefined : state.options,
  });
}

/** Whether the editor holds changes the saved list does not (all of a calendar never saved). */
export const isDirty = (state: EditorState): boolean => state.saved === null || editorContent(state) !== state.saved;

const pageOf = (answer: FeedAnswer): Page => ({ total: answer.eventCount, offset: answer.offset, events: answer.events });

/** The sources' target as text: what the feed is read from changed when this did. */
const readKey = (sources: SourcesState) => JSON.stringify(readTarget(sources.committed));

/** The hosting after a publish: the edit token comes only on an id's first publish, so keep ours. */
export function hostingAfterPublish(hosting: Hosting, answer: PublishAnswer, publishedConfig?: string): Hosting {
  return { hostedUrl: answer.hostedUrl, editToken: answer.editToken ?? hosting.editToken, publishedConfig };
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  switch (action.type) {
    case 'refetch':
      // A page still on its way is dropped with the feed it belonged to.
      return { ...state, loading: true, pageLoading: false };
    case 'feedLoaded':
      // SPEC.md 4: a (re)loaded feed shows its first event. The server read the addresses and
      // prefixes again: what it said of them before is behind us.
      return {
        ...state,
        feed: action.answer,
        feedTarget: action.target,
        samples: firstSample(pageOf(action.answer)),
        loading: false,
        unreachable: false,
        sources: sourcesReducer(state.sources, { type: 'clearServerErrors', inputs: ['url', 'prefix', 'auth'] }),
      };
    case 'feedFailed':
      return { ...state, loading: false, unreachable: action.unreachable ?? false };
    case 'showSamples':
      return { ...state, samples: action.samples };
    case 'pageRequested':
      return { ...state, pageLoading: true };
    case 'pageLoaded':
      return {
        ...state,
        feed: action.answer,
        feedTarget: action.target,
        samples: withPage(pageOf(action.answer), action.index),
        pageLoading: false,
        unreachable: false,
      };
    case 'pageFailed':
      return { ...state, pageLoading: false, unreachable: action.unreachable ?? false };
    case 'sources': {
      const sources = sourcesReducer(state.sources, action.action);
      if (sources === state.sources) return state;
      if (readKey(sources) === readKey(state.sources)) return { ...state, sources };
      // Other feeds to read: the shown ones stay until they come (as on Refetch); with none left
      // to read, there is no feed.
      if (readTarget(sources.committed) === null) return { ...state, sources, feed: null, feedTarget: null, samples: null, loading: false, pageLoading: false };
      return { ...state, sources, loading: true, pageLoading: false };
    }
    case 'setTemplate':
      return { ...state, mapping: { ...state.mapping, [action.field]: action.value } };
    case 'options':
      return { ...state, options: optionsReducer(state.options, action.action) };
    case 'focusField':
      return { ...state, lastFocused: action.field };
    case 'openRegex':
      return { ...state, regexField: action.field };
    case 'closeRegex':
      return { ...state, regexField: null };
    case 'publishStarted':
      return { ...state, publishing: true };
    case 'publishEnded':
      return {
        ...state,
        publishing: false,
        hosting: action.answer ? hostingAfterPublish(state.hosting, action.answer, action.publishedConfig) : state.hosting,
        // What was given is stored now: the editor keeps only that a login is saved.
        sources: action.answer ? sourcesReducer(sourcesReducer(state.sources, { type: 'clearServerErrors' }), { type: 'loginsSaved' }) : state.sources,
      };
    case 'unpublishStarted':
      return { ...state, unpublishing: true };
    case 'unpublishEnded':
      return { ...state, unpublishing: false, hosting: action.done ? {} : state.hosting };
    case 'saved':
      return { ...state, saved: editorContent(state) };
    case 'restart': {
      const next = { ...action.state, hosting: state.hosting, saved: state.saved, publishing: state.publishing, unpublishing: state.unpublishing };
      const shown = { feed: state.feed, feedTarget: state.feedTarget, samples: state.samples, loading: state.loading, pageLoading: state.pageLoading };
      if (readKey(next.sources) === readKey(state.sources)) return { ...next, ...shown, unreachable: state.unreachable };
      // Other feeds to read (the hook reads them as their target changes), as after a change of sources.
      if (readTarget(next.sources.committed) === null) return { ...next, feed: null, feedTarget: null, samples: null, loading: false, pageLoading: false };
      return { ...next, ...shown, loading: true, pageLoading: false };
    }
  }
}

/** The calendar's feed as Build & Host sends it (no address at all: an empty one, which nothing takes). */
export function feedWire(state: EditorState): FeedWire {
  return publishTarget(state.sources.rows)?.wire ?? { url: '' };
}

/**
 * The calendar as Save keeps it: its feeds as sources.ts stores them (rows without an address left
 * out), the hosting fields only when there are some.
 */
export function savedCalendar(state: EditorState, calendar: { id: string; name: string }, now: Date): SavedCalendar {
  const { hosting } = state;
  return {
    id: calendar.id,
    name: calendar.name,
    ...storedFeed(state.sources.rows),
    mapping: state.mapping,
    lastBuiltAt: now.toISOString(),
    // Options that say nothing are left out: the entry reads as it did before options existed.
    ...(isEmptyOptions(state.options) ? {} : { options: state.options }),
    ...(hosting.editToken ? { editToken: hosting.editToken } : {}),
    ...(hosting.hostedUrl ? { hostedUrl: hosting.hostedUrl } : {}),
    ...(hosting.hostedUrl && hosting.publishedConfig ? { publishedConfig: hosting.publishedConfig } : {}),
  };
}

/** What Build & Host sends: the edit token once there is one, so the server lets us replace it. */
export function publishRequest(state: EditorState, calendar: { id: string; name: string }): PublishRequest {
  const { editToken } = state.hosting;
  // The feed is `url` or `sources`; the options sit beside the mapping (the config's keys, absent
  // when they say nothing).
  return {
    id: calendar.id,
    name: calendar.name,
    ...feedWire(state),
    ...buildConfig(state.mapping, state.options),
    ...(editToken ? { editToken } : {}),
  };
}
