// The calendar editor (SPEC.md 2, 4, 8): reads the feed through the server, shows sample events,
// edits the five templates with a live preview from the real engine, saves locally, and publishes
// (Build & Host) to a hosted address, or takes it down again; a hosted calendar's health shows
// under its address.
import { useCallback, useLayoutEffect, useMemo, useReducer, useRef, useState, type MouseEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ArrowLeft, CloudUpload, Plus, RefreshCw, Save, TriangleAlert, WifiOff } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { siteKey } from '../lib/siteKey';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { useOnline } from '../lib/useOnline';
import { formatBytes, formatEventCount } from '../lib/units';
import { previewConfig, renderMapping, type MappingRender, type PreviewAnswer } from './api';
import { DEFAULT_NAME, isValidId, LARGE_FEED_BYTES, MAPPING_FIELDS, type Mapping, type MappingField } from './calendar';
import { askNewCalendar } from './addCalendar';
import { CalendarHealth } from './CalendarHealth';
import { editorReducer, initialEditorState, savedCalendar } from './editor';
import { HostedBanner } from './HostedBanner';
import { liveState, publishFingerprint } from './live';
import { browserHostingDeps, runPublish, runUnpublish } from './hosting';
import { MappingPanel } from './MappingPanel';
import { buildConfig, checkOptions, occurrenceOf, problemFromServer, type CalendarConfig } from './options';
import { OptionsPanel } from './OptionsPanel';
import { PreviewPanel } from './PreviewPanel';
import { EMPTY_DRAFT, RegexDialog, type RegexDraft } from './RegexDialog';
import { currentEvent, orderedKeys, type SampleEvent } from './samples';
import { SamplePanel } from './SamplePanel';
import { calendarStore } from './storage';
import { insertSpaced, placeToken, type PlaceMode } from './token';
import { useCalendarHealth } from './useCalendarHealth';
import { useEditorFeed } from './useEditorFeed';
import { useLatestRender } from './useLatest';

// The stored key, if any: the preview never asks (opening the feed already did).
const renderPreview = (request: { event: SampleEvent; mapping: Mapping }) => renderMapping(request.event, request.mapping, siteKey.read());

/** The whole feed through the engine with the config: counts, size and each event's decision. */
interface PreviewRequest {
  url: string;
  config: CalendarConfig;
  /** The feed copy it is for: a Refetch asks again. */
  fetchedAt: string;
}
const runConfigPreview = (request: PreviewRequest) => previewConfig(request.url, request.config, siteKey.read());

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
  return <CalendarEditor key={`${id} ${url}`} id={id} url={url} nameParam={name} />;
}

function CalendarEditor({ id, url, nameParam }: { id: string; url: string; nameParam: string | null }) {
  const navigate = useNavigate();
  const stored = useMemo(() => calendarStore.get(id), [id]);
  const name = nameParam?.trim() || stored?.name.trim() || DEFAULT_NAME;
  useDocumentTitle(`Editor · ${name}`);

  const [state, dispatch] = useReducer(editorReducer, stored, initialEditorState);
  const { mapping, options, hosting, feed, samples, loading, pageLoading, publishing, unpublishing, regexField, lastFocused, unreachable } = state;
  const online = useOnline();
  const { refetch, moveSample } = useEditorFeed(url, dispatch);
  const health = useCalendarHealth(id, hosting);
  // What a backdrop tap closed the regex dialog on, per sample field, for the next opening.
  const [regexDrafts, setRegexDrafts] = useState<Partial<Record<string, RegexDraft>>>({});
  const fieldRefs = useRef<Partial<Record<MappingField, HTMLTextAreaElement | null>>>({});
  const pendingCaret = useRef<{ field: MappingField; caret: number; focus: boolean } | null>(null);

  const event = samples ? currentEvent(samples) : undefined;
  const previewRequest = useMemo(() => (event ? { event, mapping } : null), [event, mapping]);
  const preview = useLatestRender<{ event: SampleEvent; mapping: Mapping }, MappingRender>(previewRequest, renderPreview, 250);
  const templateErrors = preview.state === 'ready' ? preview.value.errors : [];
  const tokens = useMemo(() => (event ? orderedKeys(event, MAPPING_FIELDS) : []), [event]);

  // The live count, size and decisions: only for options the editor finds sound itself.
  const localProblems = useMemo(() => checkOptions(options), [options]);
  const fetchedAt = feed?.fetchedAt ?? null;
  const configRequest = useMemo<PreviewRequest | null>(
    () => (fetchedAt !== null && localProblems.length === 0 ? { url, config: buildConfig(mapping, options), fetchedAt } : null),
    [url, mapping, options, fetchedAt, localProblems],
  );
  const configPreview = useLatestRender<PreviewRequest, PreviewAnswer>(configRequest, runConfigPreview, 400);
  const serverProblem = configPreview.state === 'failed' ? problemFromServer(configPreview) : null;
  const problems = serverProblem ? [...localProblems, serverProblem] : localProblems;
  const decision = configPreview.state === 'ready' && samples ? configPreview.value.decisions[samples.index] : undefined;
  // Before the server's first answer the notes hold their place (see DecisionNote).
  const decisionPending = configRequest !== null && configPreview.state === 'idle';

  const hide = (what: 'occurrence' | 'series') => {
    if (!event) return;
    const recurrenceId = what === 'occurrence' ? occurrenceOf(event) : undefined;
    dispatch({ type: 'options', action: { type: 'hideEvent', uid: event.UID ?? '', ...(recurrenceId ? { recurrenceId } : {}) } });
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

  const save = () => {
    const result = calendarStore.upsert(savedCalendar(state, { id, name, url }, new Date()));
    if (!result.ok) {
      window.alert(result.error);
      return;
    }
    void navigate('/calendars');
  };

  // Busy buttons stay focusable (aria-disabled, not disabled), so focus never falls to <body>.
  const publish = (e: MouseEvent) => {
    e.preventDefault();
    if (publishing) return;
    void runPublish(state, { id, name, url }, dispatch, browserHostingDeps);
  };
  const live = liveState(hosting.publishedConfig, publishFingerprint({ name, url }, mapping, options));
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
        <p className="cal-editor__url">{url}</p>
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
        {feed?.stale && (
          <p className="alert alert--warning cal-warning" role="note">
            <TriangleAlert aria-hidden="true" size={16} />
            The feed could not be fetched just now ({feed.stale}); showing the copy from {feed.fetchedAt}.
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
        <HostedBanner hostedUrl={hosting.hostedUrl} canUnpublish={Boolean(hosting.editToken)} unpublishing={unpublishing} onUnpublish={unpublish} live={live} />
      )}
      {health.view && <CalendarHealth view={health.view} onCheck={health.check} />}

      <div className="cal-editor__panels">
        <SamplePanel
          samples={samples}
          loading={loading || pageLoading}
          decision={decision}
          decisionPending={decisionPending}
          onMove={(delta) => moveSample(samples, delta)}
          onInsert={openRegex}
          onHide={hide}
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
        <PreviewPanel rendered={preview} hasSample={event !== undefined} decision={decision} decisionPending={decisionPending} />
        <OptionsPanel
          options={options}
          problems={problems}
          preview={serverProblem || localProblems.length > 0 ? { state: 'idle' } : configPreview}
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
    </section>
  );
}
