// The calendar editor (SPEC.md 2, 4, 8): reads the feed through the server (one address, or the
// feeds merged into the calendar, edited in its header), shows sample events, edits the five
// templates with a live preview from the real engine, saves locally, and publishes (Build & Host)
// to a hosted address, or takes it down again; a hosted calendar's health shows under its address.
// Work not saved yet is marked, kept as a draft on every way out and restored on return
// (editorSession.ts); leaving asks only when that draft could not be written.
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type MouseEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ArrowLeft, CloudUpload, Plus, RefreshCw, Save, TriangleAlert, WifiOff } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { DraftNotice } from '../lib/DraftNotice';
import { fetchedWhen } from '../lib/when';
import { useDraftKeeping } from '../lib/useDraftKeeping';
import { siteKey } from '../lib/siteKey';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { useOnline } from '../lib/useOnline';
import { formatBytes, formatEventCount } from '../lib/units';
import { previewConfig, renderMapping, type MappingRender, type PreviewAnswer } from './api';
import { DEFAULT_NAME, editorPath, isValidId, LARGE_FEED_BYTES, MAPPING_FIELDS, type Mapping, type MappingField, type SavedCalendar } from './calendar';
import { askNewCalendar } from './addCalendar';
import { CalendarHealth } from './CalendarHealth';
import { editorContent, editorReducer, feedWire, initialEditorState, isDirty, savedCalendar } from './editor';
import { draftOf, editorStart, type EditorStart } from './editorSession';
import { LeaveDialog } from '../lib/LeaveDialog';
import { HostedBanner } from './HostedBanner';
import { AgendaLinks } from './AgendaLinks';
import { agendaPublished } from './agenda';
import { GoogleAddress } from './GoogleAddress';
import { liveState, publishFingerprint } from './live';
import { browserHostingDeps, runPublish, runUnpublish } from './hosting';
import { MappingPanel } from './MappingPanel';
import { buildConfig, checkOptions, problemFromServer, type CalendarConfig } from './options';
import { OptionsPanel } from './OptionsPanel';
import { PropertiesPanel } from './PropertiesPanel';
import { changedFeeds } from './properties';
import { PreviewPanel } from './PreviewPanel';
import { EMPTY_DRAFT, RegexDialog, type RegexDraft } from './RegexDialog';
import { currentEvent, orderedKeys, type SampleEvent } from './samples';
import { SamplePanel } from './SamplePanel';
import {
  eventSourceKey,
  feedHost,
  readTarget,
  reportOfRow,
  rowOfField,
  sourceNames,
  sourceProblems,
  storedFeed,
  withOwner,
  type FeedWire,
  type SourceReport,
} from './sources';
import { SourcesEditor } from './SourcesEditor';
import type { EventSource } from './SourceTag';
import { calendarStore } from './storage';
import { insertSpaced, placeToken, type PlaceMode } from './token';
import { useCalendarHealth } from './useCalendarHealth';
// Events changed by hand: the dialog from the sample, and the list beside the options.
import { EventChangeDialog } from './EventChangeDialog';
import { changesOn, editsOn, hideOverride, targetsOf, type EventTargets } from './eventChange';
import { OverridesList } from './OverridesList';
import { useEditorFeed } from './useEditorFeed';
import { useLatestRender } from './useLatest';

// The stored key, if any: the preview never asks (opening the feed already did).
const renderPreview = (request: { event: SampleEvent; mapping: Mapping }) => renderMapping(request.event, request.mapping, siteKey.read());

/** The whole feed through the engine with the config: counts, size and each event's decision. */
interface PreviewRequest {
  /** The feed read (sources.ts's readTarget): its decisions are in the order of its events. */
  wire: FeedWire;
  config: CalendarConfig;
  /** The feed copy it is for: a Refetch asks again. */
  fetchedAt: string;
}
const runConfigPreview = (request: PreviewRequest) => previewConfig(request.wire, request.config, siteKey.read());

/** Typing pauses this long before the draft is written. */
const DRAFT_DELAY_MS = 400;

/** Reads id, url and name from the address; a calendar without them cannot be edited. */
export function CalendarEditorRoute() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const id = params.get('id') ?? '';
  const url = params.get('url')?.trim() ?? '';
  const name = params.get('name');
  if (!isValidId(id) || url === '') {
    return (
      <section className="page">
        <h1>Editor</h1>
        <div className="card page empty-state">
          <p>This address names no calendar to edit.</p>
          <div className="cal-item__actions">
            <ButtonLink to="/calendars">
              <ArrowLeft aria-hidden="true" size={16} />
              All calendars
            </ButtonLink>
            <button
              type="button"
              className="button button--primary"
              onClick={() => {
                const path = askNewCalendar();
                if (path) void navigate(path);
              }}
            >
              <Plus aria-hidden="true" size={16} />
              Add Calendar
            </button>
          </div>
        </div>
      </section>
    );
  }
  // Keyed by the id alone: the editor keeps the address in its link on the calendar's first feed,
  // which must not start it over.
  return <CalendarEditor key={id} id={id} url={url} nameParam={name} />;
}

function CalendarEditor({ id, url, nameParam }: { id: string; url: string; nameParam: string | null }) {
  const navigate = useNavigate();
  // `url` is read once: later the editor's own feeds are what counts (see below).
  const [start] = useState((): EditorStart & { stored: SavedCalendar | null } => {
    const stored = calendarStore.get(id);
    return { ...editorStart(stored, calendarStore.readDraft(id), url), stored };
  });
  const { stored } = start;
  const name = nameParam?.trim() || stored?.name.trim() || DEFAULT_NAME;
  useDocumentTitle(`Editor · ${name}`);

  const [state, dispatch] = useReducer(editorReducer, start.state);
  const [restored, setRestored] = useState(start.restored);
  const [draftError, setDraftError] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const {
    mapping,
    options,
    sources,
    hosting,
    feed,
    feedTarget,
    samples,
    loading,
    pageLoading,
    publishing,
    unpublishing,
    regexField,
    lastFocused,
    unreachable,
    saved,
  } = state;
  const online = useOnline();
  const target = useMemo(() => withOwner(readTarget(sources.committed), id, hosting.editToken), [sources.committed, id, hosting.editToken]);
  // With UIDs made from content the feed is read with them, so the event list names events by them.
  const { refetch, moveSample } = useEditorFeed(JSON.stringify(target && options.uids ? { ...target, uids: options.uids } : target), sources.rows, dispatch);

  // The link names the calendar's first feed, so a reload (or a link copied now) opens these feeds.
  const firstUrl = storedFeed(sources.committed).url;
  useEffect(() => {
    if (firstUrl !== '' && firstUrl !== url) void navigate(editorPath({ id, url: firstUrl, name: nameParam ?? name }), { replace: true });
  }, [firstUrl, url, id, nameParam, name, navigate]);

  const feedKeys = useMemo(() => feedTarget?.keys ?? [], [feedTarget]);
  const names = useMemo(() => sourceNames(sources.rows), [sources.rows]);
  const sourceChecks = useMemo(() => sourceProblems(sources.committed), [sources.committed]);
  const reports = useMemo(() => {
    const map = new Map<number, SourceReport>();
    if (!feed) return map;
    for (const row of sources.rows) {
      const report = reportOfRow(feed, feedKeys, row.key);
      if (report) map.set(row.key, report);
    }
    return map;
  }, [feed, feedKeys, sources.rows]);
  const health = useCalendarHealth(id, hosting);
  const uidsChanged = useMemo(
    () => changedFeeds(feed, (i) => names[sources.rows.findIndex((r) => r.key === feedKeys[i])] ?? `Feed ${i + 1}`),
    [feed, feedKeys, names, sources.rows],
  );
  // What a backdrop tap closed the regex dialog on, per sample field, for the next opening.
  const [regexDrafts, setRegexDrafts] = useState<Partial<Record<string, RegexDraft>>>({});
  const fieldRefs = useRef<Partial<Record<MappingField, HTMLTextAreaElement | null>>>({});
  const pendingCaret = useRef<{ field: MappingField; caret: number; focus: boolean } | null>(null);

  const event = samples ? currentEvent(samples) : undefined;
  // In a calendar of several feeds, the one the sample came from (a feed removed since by its host).
  const eventSource = useMemo((): EventSource | undefined => {
    if (!sources.listed || !samples || !feed) return undefined;
    const key = eventSourceKey(feed.eventSources, feedKeys, samples.index - samples.offset);
    if (key === undefined) return undefined;
    const at = sources.rows.findIndex((r) => r.key === key);
    const name = names[at];
    // The prefix the feed was read with (its committed row's).
    const prefix = sources.committed.find((r) => r.key === key)?.prefix ?? '';
    if (name !== undefined) return { number: at + 1, name, prefix };
    const host = feedHost(feed.sources[feedKeys.indexOf(key)]?.url ?? '');
    return host === '' ? undefined : { number: feedKeys.indexOf(key) + 1, name: host };
  }, [sources.listed, sources.rows, sources.committed, samples, feed, feedKeys, names]);
  const previewRequest = useMemo(() => (event ? { event, mapping } : null), [event, mapping]);
  const preview = useLatestRender<{ event: SampleEvent; mapping: Mapping }, MappingRender>(previewRequest, renderPreview, 250);
  const templateErrors = preview.state === 'ready' ? preview.value.errors : [];
  const tokens = useMemo(() => (event ? orderedKeys(event, MAPPING_FIELDS) : []), [event]);

  // The live count, size and decisions: only for options the editor finds sound itself.
  const localProblems = useMemo(() => checkOptions(options), [options]);
  const fetchedAt = feed?.fetchedAt ?? null;
  // Of the feed shown (not of feeds still loading): its decisions go with its samples.
  const shownWire = feedTarget?.wire ?? null;
  const configRequest = useMemo<PreviewRequest | null>(
    () => (shownWire && fetchedAt !== null && localProblems.length === 0 ? { wire: shownWire, config: buildConfig(mapping, options), fetchedAt } : null),
    [shownWire, mapping, options, fetchedAt, localProblems],
  );
  const configPreview = useLatestRender<PreviewRequest, PreviewAnswer>(configRequest, runConfigPreview, 400);
  const serverProblem = configPreview.state === 'failed' ? problemFromServer(configPreview) : null;
  // A preview refused over one feed's address or prefix: said at that feed's input too.
  const previewSourceError = useMemo(() => {
    if (configPreview.state !== 'failed') return null;
    const at = rowOfField(configPreview.field, feedTarget, sources.rows);
    return at ? { key: at.key, input: at.input, message: configPreview.message } : null;
  }, [configPreview, feedTarget, sources.rows]);
  const problems = serverProblem ? [...localProblems, serverProblem] : localProblems;
  const decision = configPreview.state === 'ready' && samples ? configPreview.value.decisions[samples.index] : undefined;
  // Before the server's first answer the notes hold their place (see DecisionNote).
  const decisionPending = configRequest !== null && configPreview.state === 'idle';

  // The sample "Change this event" was opened on, with what a change of it names.
  const [changing, setChanging] = useState<{ event: SampleEvent; targets: EventTargets; prefix: string } | null>(null);
  const openChange = () => {
    const targets = event ? targetsOf(event) : null;
    if (event && targets) setChanging({ event, targets, prefix: eventSource?.prefix ?? '' });
  };
  const closeChange = useCallback(() => setChanging(null), []);
  const overrides = useMemo(() => options.overrides ?? [], [options.overrides]);

  const sampleTargets = useMemo(() => (event ? targetsOf(event) : null), [event]);
  const edits = useMemo(() => (event ? editsOn(event, overrides) : []), [event, overrides]);
  // Hiding from the sample is a change by hand, as from the dialog: one list holds every hide.
  const hide = (what: 'one' | 'series') => {
    const override = sampleTargets ? hideOverride(sampleTargets, what) : null;
    if (override) dispatch({ type: 'options', action: { type: 'overrides', action: { type: 'set', override } } });
  };

  // Puts the caret after an inserted token once the new text is on screen.
  useLayoutEffect(() => {
    const pending = pendingCaret.current;
    if (!pending) return;
    pendingCaret.current = null;
    const area = fieldRefs.current[pending.field];
    if (!area) return;
    if (pending.focus) area.focus();
    area.setSelectionRange(pending.caret, pending.caret);
  }, [mapping]);

  /** The caret of a field if it is the one last used, else its end. */
  const selectionOf = (field: MappingField) => {
    const area = fieldRefs.current[field];
    const value = mapping[field];
    return lastFocused === field && area ? { start: area.selectionStart, end: area.selectionEnd } : { start: value.length, end: value.length };
  };

  /** A token chip: inserted, spaced, at the caret of the field last used (DESCRIPTION if none). */
  const insertChip = (token: string) => {
    const field = lastFocused ?? 'DESCRIPTION';
    const { start, end } = selectionOf(field);
    const inserted = insertSpaced(mapping[field], start, end, token);
    pendingCaret.current = { field, caret: inserted.caret, focus: true };
    dispatch({ type: 'setTemplate', field, value: inserted.value });
  };

  /** The regex dialog's token, into the field and in the way chosen there. */
  const insertRegexToken = (token: string, target: MappingField, mode: PlaceMode) => {
    const placed = placeToken(mapping[target], token, mode, regexField ?? '', selectionOf(target));
    pendingCaret.current = { field: target, caret: placed.caret, focus: false };
    dispatch({ type: 'setTemplate', field: target, value: placed.value });
  };

  // Unsaved work: written a short pause after each change (and on every way out, below), dropped
  // once the editor says again what the list holds.
  const content = useMemo(() => editorContent({ sources, mapping, options }), [sources, mapping, options]);
  const dirty = saved === null || content !== saved;
  const latest = useRef(state);
  /** Set when the editor itself leaves after a save, or the visitor chose to leave: nothing to keep. */
  const leaving = useRef(false);
  useEffect(() => {
    latest.current = state;
  });
  const writeDraft = useCallback(() => {
    const result = calendarStore.writeDraft(draftOf(latest.current, { id, name }, new Date()));
    setDraftError(result.ok ? null : result.error);
    return result.ok;
  }, [id, name]);
  useEffect(() => {
    const handle = window.setTimeout(() => {
      if (dirty) writeDraft();
      else calendarStore.clearDraft(id);
    }, DRAFT_DELAY_MS);
    return () => window.clearTimeout(handle);
  }, [content, dirty, id, writeDraft]);
  const guard = useDraftKeeping({ dirty: () => isDirty(latest.current), settled: () => leaving.current, write: writeDraft });

  /** Keeps the calendar in the list; false (said in an alert) when it could not be written. */
  const store = (): boolean => {
    const result = calendarStore.upsert(savedCalendar(state, { id, name }, new Date()));
    if (!result.ok) {
      window.alert(result.error);
      return false;
    }
    calendarStore.clearDraft(id);
    dispatch({ type: 'saved' });
    setRestored(null);
    return true;
  };

  const save = () => {
    if (!store()) return;
    leaving.current = true;
    void navigate('/calendars');
  };

  const discardChanges = () => {
    calendarStore.clearDraft(id);
    const current = calendarStore.get(id);
    // Back to the saved calendar; one never saved starts again at its address, with the defaults.
    dispatch({ type: 'restart', state: initialEditorState(current, current?.url ?? storedFeed(sources.rows).url) });
    setRestored(null);
    setAnnouncement('Unsaved changes discarded.');
  };

  // Busy buttons stay focusable (aria-disabled, not disabled), so focus never falls to <body>.
  // Each Build & Host that succeeds brings the banner into view with the focus (HostedBanner).
  const [published, setPublished] = useState(0);
  const publish = (e: MouseEvent) => {
    e.preventDefault();
    if (publishing) return;
    void runPublish(state, { id, name }, dispatch, browserHostingDeps).then((done) => {
      if (done) setPublished((n) => n + 1);
    });
  };
  const live = liveState(hosting.publishedConfig, publishFingerprint({ name, ...feedWire(state) }, mapping, options));
  const unpublish = () => void runUnpublish(state, id, dispatch, browserHostingDeps);
  const closeRegex = useCallback(
    (draft: RegexDraft, keep: boolean) => {
      if (regexField !== null) {
        const kept = keep && (draft.pattern !== '' || draft.replacement !== '');
        setRegexDrafts((drafts) => ({ ...drafts, [regexField]: kept ? draft : undefined }));
      }
      dispatch({ type: 'closeRegex' });
    },
    [regexField, dispatch, setRegexDrafts],
  );
  const openRegex = useCallback((field: string) => dispatch({ type: 'openRegex', field }), [dispatch]);
  const focusField = useCallback((field: MappingField) => dispatch({ type: 'focusField', field }), [dispatch]);
  const large = feed !== null && feed.sizeBytes > LARGE_FEED_BYTES;

  return (
    <section className="page cal-editor">
      <Link className="back-link" to="/calendars">
        <ArrowLeft aria-hidden="true" size={16} />
        All calendars
      </Link>
      <header className="card cal-editor__header">
        <div className="toolbar">
          <div className="toolbar__title">
            <h1>Editor</h1>
            {dirty && <span className="unsaved-marker">{saved === null ? 'Not saved yet' : 'Unsaved changes'}</span>}
          </div>
          <button
            type="button"
            className="button"
            onClick={() => {
              if (!loading) refetch();
            }}
            aria-disabled={loading || undefined}
          >
            <RefreshCw aria-hidden="true" size={16} className={loading ? 'cal-spin' : undefined} />
            <span className="stable-label">
              <span aria-hidden={!loading}>Loading…</span>
              <span aria-hidden={loading}>Refetch</span>
            </span>
          </button>
          <button type="button" className="button" onClick={save}>
            <Save aria-hidden="true" size={16} />
            Save
          </button>
          <button type="button" className="button button--primary" onClick={publish} aria-disabled={publishing || undefined}>
            <CloudUpload aria-hidden="true" size={16} />
            {publishing ? 'Publishing...' : 'Build & Host'}
          </button>
        </div>
        <p className="cal-editor__name">{name}</p>
        {restored && dirty && <DraftNotice savedAt={restored.savedAt} onDiscard={discardChanges} />}
        {draftError && (
          <p className="alert alert--warning cal-warning" role="alert">
            <TriangleAlert aria-hidden="true" size={16} />
            {draftError}
          </p>
        )}
        <SourcesEditor
          sources={sources}
          names={names}
          problems={sourceChecks}
          reports={reports}
          previewError={previewSourceError}
          onAction={(action) => dispatch({ type: 'sources', action })}
        />
        {(!online || unreachable) && (
          <p className="alert alert--warning cal-warning cal-editor__offline" role="status">
            <WifiOff aria-hidden="true" size={16} />
            {online
              ? 'This page could not reach the Hearth server, so the feed was not read. Check your connection, then press Refetch.'
              : 'You are offline, so the feed cannot be read, previewed or published. Your edits stay here: Save keeps them in this browser; Refetch once you are back online.'}
          </p>
        )}
        {/* Shown while the feed loads too, so the page below does not move when it arrives. */}
        {loading ? (
          <p className="cal-editor__meta">Reading the feed…</p>
        ) : (
          feed && (
            <p className="cal-editor__meta" aria-label="Feed size">
              <span>{formatEventCount(feed.eventCount)}</span>
              <span aria-hidden="true">·</span>
              <span>{formatBytes(feed.sizeBytes)}</span>
            </p>
          )
        )}
        {large && (
          <p className="alert alert--warning cal-warning" role="note">
            <TriangleAlert aria-hidden="true" size={16} />
            This feed is {formatBytes(feed.sizeBytes)}. Google Calendar may stop importing feeds larger than 1 MB; other apps may be slow with it.
          </p>
        )}
        {/* A calendar of several feeds says this at the feed that failed. */}
        {feed?.stale && feed.sources.length === 0 && (
          <p className="alert alert--warning cal-warning" role="note">
            <TriangleAlert aria-hidden="true" size={16} />
            The feed could not be fetched just now ({feed.stale}); showing the copy {fetchedWhen(feed.fetchedAt, new Date())}.
          </p>
        )}
        {feed && feed.warningCount > 0 && (
          <details className="cal-parse-warnings">
            <summary>
              {feed.warningCount === 1
                ? '1 line of the feed could not be read and is passed through unchanged'
                : `${feed.warningCount} lines of the feed could not be read and are passed through unchanged`}
            </summary>
            <ul>
              {feed.warnings.map((warning, i) => (
                <li key={i}>{warning}</li>
              ))}
            </ul>
          </details>
        )}
      </header>

      {hosting.hostedUrl && (
        <HostedBanner
          hostedUrl={hosting.hostedUrl}
          canUnpublish={Boolean(hosting.editToken)}
          unpublishing={unpublishing}
          onUnpublish={unpublish}
          live={live}
          published={published}
        />
      )}
      {hosting.hostedUrl && agendaPublished(hosting.publishedConfig) && <AgendaLinks hostedUrl={hosting.hostedUrl} name={name} />}
      {hosting.hostedUrl && <GoogleAddress id={id} editToken={hosting.editToken} health={health.view} />}
      {health.view && <CalendarHealth view={health.view} onCheck={health.check} />}

      <div className="cal-editor__panels">
        <SamplePanel
          samples={samples}
          loading={loading || pageLoading}
          decision={decision}
          decisionPending={decisionPending}
          source={eventSource}
          noSample={target ? undefined : 'No sample: none of the feeds above can be read yet. Check their addresses.'}
          onMove={(delta) => moveSample(samples, delta)}
          onInsert={openRegex}
          onHide={hide}
          recurring={sampleTargets?.recurring ?? false}
          onChangeEvent={openChange}
          changed={event ? changesOn(event, overrides) : ''}
        />
        <MappingPanel
          mapping={mapping}
          errors={templateErrors}
          tokens={tokens}
          fieldRefs={fieldRefs}
          onChange={(field, value) => dispatch({ type: 'setTemplate', field, value })}
          onFocusField={focusField}
          onToken={insertChip}
          rendered={event ? preview : null}
        />
        <PreviewPanel
          rendered={preview}
          hasSample={event !== undefined}
          decision={decision}
          decisionPending={decisionPending}
          source={eventSource}
          edits={edits}
        />
        <PropertiesPanel
          properties={options.properties}
          uids={options.uids}
          busy={options.privacy === 'busy'}
          problems={problems}
          uidsChanged={uidsChanged}
          onAction={(action) => dispatch({ type: 'options', action })}
        />
        <OptionsPanel
          options={options}
          problems={problems}
          preview={serverProblem || localProblems.length > 0 ? { state: 'idle' } : configPreview}
          onAction={(action) => dispatch({ type: 'options', action })}
        />
        <OverridesList
          overrides={overrides}
          sent={configRequest?.config.overrides}
          preview={configPreview}
          problems={problems}
          onAction={(action) => dispatch({ type: 'options', action })}
        />
      </div>

      {regexField !== null && event && (
        <RegexDialog
          field={regexField}
          target={lastFocused ?? 'DESCRIPTION'}
          mapping={mapping}
          event={event}
          draft={regexDrafts[regexField] ?? EMPTY_DRAFT}
          onInsert={insertRegexToken}
          onClose={closeRegex}
        />
      )}
      {guard.state === 'blocked' && (
        <LeaveDialog
          name={name}
          onStay={() => guard.reset()}
          onLeave={() => {
            leaving.current = true;
            calendarStore.clearDraft(id);
            guard.proceed();
          }}
          onSave={() => {
            if (store()) {
              leaving.current = true;
              guard.proceed();
            } else guard.reset();
          }}
        />
      )}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {changing && (
        <EventChangeDialog
          event={changing.event}
          targets={changing.targets}
          overrides={overrides}
          prefix={changing.prefix}
          onSave={(override) => dispatch({ type: 'options', action: { type: 'overrides', action: { type: 'set', override } } })}
          onClose={closeChange}
        />
      )}
    </section>
  );
}
