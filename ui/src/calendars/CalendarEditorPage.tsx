// The calendar editor (SPEC.md 2, 4, 8): reads the feed through the server, shows sample events,
// edits the five templates with a live preview from the real engine, saves locally, and publishes
// (Build & Host) to a hosted address, or takes it down again.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ArrowLeft, CloudUpload, Plus, RefreshCw, Save, TriangleAlert } from 'lucide-react';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { fetchFeed, publishCalendar, renderMapping, unpublishCalendar, type FeedAnswer, type MappingRender } from './api';
import {
  DEFAULT_NAME,
  defaultMapping,
  formatBytes,
  formatEventCount,
  isValidId,
  LARGE_FEED_BYTES,
  MAPPING_FIELDS,
  type Mapping,
  type MappingField,
  type SavedCalendar,
} from './calendar';
import { askNewCalendar } from './addCalendar';
import { HostedBanner } from './HostedBanner';
import { MappingPanel } from './MappingPanel';
import { PreviewPanel } from './PreviewPanel';
import { aboutTheVisitor, withPublishKey } from './publish';
import { browserKeyDeps } from './publishKeyPrompt';
import { RegexDialog } from './RegexDialog';
import { currentEvent, firstSample, move, orderedKeys, PAGE_SIZE, withPage, type SampleEvent, type Samples } from './samples';
import { SamplePanel } from './SamplePanel';
import { calendarStore } from './storage';
import { insertAt } from './token';
import { useLatestRender } from './useLatest';

export const FEED_ERROR = 'Failed to fetch/parse ICS. Check CORS or URL.';

// Being throttled or refused the key is not a problem with the feed: those words stand alone.
const feedFailure = (message: string, status: number) => (aboutTheVisitor(status) ? message : `${FEED_ERROR}\n${message}`);
// The stored key, if any: the preview never asks (opening the feed already did).
const renderPreview = (request: { event: SampleEvent; mapping: Mapping }) =>
  renderMapping(request.event, request.mapping, calendarStore.readPublishKey());

interface Hosting {
  hostedUrl?: string;
  editToken?: string;
}

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
            <Link className="button" to="/calendars">
              <ArrowLeft aria-hidden="true" size={16} />
              All calendars
            </Link>
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

  const [mapping, setMapping] = useState<Mapping>(() => stored?.mapping ?? defaultMapping());
  const [hosting, setHosting] = useState<Hosting>(() => ({ hostedUrl: stored?.hostedUrl, editToken: stored?.editToken }));
  const [feed, setFeed] = useState<FeedAnswer | null>(null);
  const [samples, setSamples] = useState<Samples | null>(null);
  const [loading, setLoading] = useState(true);
  const [pageLoading, setPageLoading] = useState(false);
  const [publishing, setPublishing] = useState(false);
  const [unpublishing, setUnpublishing] = useState(false);
  const [regexField, setRegexField] = useState<string | null>(null);
  const [lastFocused, setLastFocused] = useState<MappingField | null>(null);
  const fieldRefs = useRef<Partial<Record<MappingField, HTMLTextAreaElement | null>>>({});
  const pendingCaret = useRef<{ field: MappingField; caret: number; focus: boolean } | null>(null);
  // Every feed request gets a number; an answer for an older number (or after leaving) is dropped.
  const feedRequest = useRef(0);

  const loadFeed = useCallback(
    (refresh: boolean) => {
      const mine = (feedRequest.current += 1);
      // State changes only when the answer comes (never synchronously in the opening effect).
      void withPublishKey((key) => fetchFeed(url, { limit: PAGE_SIZE, refresh }, key), browserKeyDeps).then((outcome) => {
        if (mine !== feedRequest.current) return;
        setLoading(false);
        if (outcome.kind === 'done') {
          const answer = outcome.value;
          setFeed(answer);
          setSamples(firstSample({ total: answer.eventCount, offset: answer.offset, events: answer.events }));
        } else if (outcome.kind === 'failed') {
          window.alert(feedFailure(outcome.message, outcome.status));
        }
      });
    },
    [url],
  );

  useEffect(() => {
    loadFeed(false);
    return () => {
      feedRequest.current += 1;
    };
  }, [loadFeed]);

  const refetch = () => {
    setLoading(true);
    setPageLoading(false);
    loadFeed(true);
  };

  const moveSample = async (delta: number) => {
    if (!samples) return;
    const next = move(samples, delta);
    if (next.kind === 'none') return;
    if (next.kind === 'show') {
      setSamples(next.samples);
      return;
    }
    const mine = (feedRequest.current += 1);
    setPageLoading(true);
    const outcome = await withPublishKey((key) => fetchFeed(url, { offset: next.offset, limit: PAGE_SIZE }, key), browserKeyDeps);
    if (mine !== feedRequest.current) return;
    setPageLoading(false);
    if (outcome.kind === 'done') {
      const answer = outcome.value;
      setFeed(answer);
      setSamples(withPage({ total: answer.eventCount, offset: answer.offset, events: answer.events }, next.index));
    } else if (outcome.kind === 'failed') {
      window.alert(feedFailure(outcome.message, outcome.status));
    }
  };

  const event = samples ? currentEvent(samples) : undefined;
  const previewRequest = useMemo(() => (event ? { event, mapping } : null), [event, mapping]);
  const preview = useLatestRender<{ event: SampleEvent; mapping: Mapping }, MappingRender>(previewRequest, renderPreview, 250);
  const templateErrors = preview.state === 'ready' ? preview.value.errors : [];
  const tokens = useMemo(() => (event ? orderedKeys(event, MAPPING_FIELDS) : []), [event]);

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

  /** Inserts at the caret of the field last used (DESCRIPTION if none), or appends. */
  const insertToken = (token: string, focus: boolean) => {
    const field = lastFocused ?? 'DESCRIPTION';
    const area = fieldRefs.current[field];
    const value = mapping[field];
    const [start, end] = lastFocused && area ? [area.selectionStart, area.selectionEnd] : [value.length, value.length];
    const inserted = insertAt(value, start, end, token);
    pendingCaret.current = { field, caret: inserted.caret, focus };
    setMapping((current) => ({ ...current, [field]: inserted.value }));
  };

  const record = (): SavedCalendar => ({
    id,
    name,
    url,
    mapping,
    lastBuiltAt: new Date().toISOString(),
    ...(hosting.editToken ? { editToken: hosting.editToken } : {}),
    ...(hosting.hostedUrl ? { hostedUrl: hosting.hostedUrl } : {}),
  });

  const save = () => {
    const result = calendarStore.upsert(record());
    if (!result.ok) {
      window.alert(result.error);
      return;
    }
    void navigate('/calendars');
  };

  const publish = async () => {
    setPublishing(true);
    const outcome = await withPublishKey(
      (key) =>
        publishCalendar({ id, name, url, mapping, ...(hosting.editToken ? { editToken: hosting.editToken } : {}) }, key),
      browserKeyDeps,
    );
    setPublishing(false);
    if (outcome.kind === 'cancelled') return;
    if (outcome.kind === 'failed') {
      window.alert(`Publish failed: ${outcome.message}`);
      return;
    }
    const next: Hosting = { hostedUrl: outcome.value.hostedUrl, editToken: outcome.value.editToken ?? hosting.editToken };
    setHosting(next);
    // The edit token is the only way to republish or take the feed down: keep it at once.
    const kept = calendarStore.get(id)
      ? calendarStore.update(id, (c) => ({ ...c, ...next }))
      : calendarStore.upsert({ ...record(), ...next });
    if (!kept.ok) window.alert(kept.error);
  };

  const unpublish = async () => {
    const token = hosting.editToken;
    if (!token || !window.confirm('Unpublish this calendar? Its hosted address stops working for subscribers.')) return;
    setUnpublishing(true);
    const outcome = await withPublishKey((key) => unpublishCalendar(id, token, key), browserKeyDeps);
    setUnpublishing(false);
    if (outcome.kind === 'cancelled') return;
    if (outcome.kind === 'failed') {
      window.alert(`Unpublish failed: ${outcome.message}`);
      return;
    }
    setHosting({});
    const kept = calendarStore.update(id, (c) => {
      const rest = { ...c };
      delete rest.editToken;
      delete rest.hostedUrl;
      return rest;
    });
    if (!kept.ok) window.alert(kept.error);
  };

  const closeRegex = useCallback(() => setRegexField(null), []);
  const large = feed !== null && feed.sizeBytes > LARGE_FEED_BYTES;

  return (
    <section className="page cal-editor">
      <Link className="cal-back" to="/calendars">
        <ArrowLeft aria-hidden="true" size={16} />
        All calendars
      </Link>
      <header className="card cal-editor__header">
        <div className="toolbar">
          <div className="toolbar__title">
            <h1>Editor</h1>
          </div>
          <button type="button" className="button" onClick={refetch} disabled={loading}>
            <RefreshCw aria-hidden="true" size={16} className={loading ? 'cal-spin' : undefined} />
            {loading ? 'Loading…' : 'Refetch'}
          </button>
          <button type="button" className="button" onClick={save}>
            <Save aria-hidden="true" size={16} />
            Save
          </button>
          <button type="button" className="button button--primary" onClick={() => void publish()} disabled={publishing}>
            <CloudUpload aria-hidden="true" size={16} />
            {publishing ? 'Publishing...' : 'Build & Host'}
          </button>
        </div>
        <p className="cal-editor__name">{name}</p>
        <p className="cal-editor__url">{url}</p>
        {feed && (
          <p className="cal-editor__meta" aria-label="Feed size">
            <span>{formatEventCount(feed.eventCount)}</span>
            <span aria-hidden="true">·</span>
            <span>{formatBytes(feed.sizeBytes)}</span>
          </p>
        )}
        {large && (
          <p className="alert alert--warning cal-warning" role="note">
            <TriangleAlert aria-hidden="true" size={16} />
            This feed is {formatBytes(feed.sizeBytes)}. Google Calendar may stop importing feeds larger than 1 MB; other apps may be
            slow with it.
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
              {feed.warningCount === 1 ? '1 line' : `${feed.warningCount} lines`} of the feed could not be read and are passed through
              unchanged
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
          onUnpublish={() => void unpublish()}
        />
      )}

      <div className="cal-editor__panels">
        <SamplePanel samples={samples} loading={loading || pageLoading} onMove={(delta) => void moveSample(delta)} onInsert={setRegexField} />
        <MappingPanel
          mapping={mapping}
          errors={templateErrors}
          tokens={tokens}
          fieldRefs={fieldRefs}
          onChange={(field, value) => setMapping((current) => ({ ...current, [field]: value }))}
          onFocusField={setLastFocused}
          onToken={(token) => insertToken(token, true)}
        />
        <PreviewPanel rendered={preview} hasSample={event !== undefined} />
      </div>

      {regexField !== null && event && (
        <RegexDialog
          field={regexField}
          target={lastFocused ?? 'DESCRIPTION'}
          event={event}
          onInsert={(token) => insertToken(token, false)}
          onClose={closeRegex}
        />
      )}
    </section>
  );
}
