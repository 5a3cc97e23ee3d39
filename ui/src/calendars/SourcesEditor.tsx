// The calendar's feeds in the editor's header: its one address with "Add another feed", or the
// list of feeds merged into it, each with its address, label and prefix, moved and removed by its
// own buttons, and how its last read went beside it. Thin: the rules are sources.ts's.
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { ArrowDown, ArrowUp, Plus, Trash2, TriangleAlert } from 'lucide-react';
import { fetchedWhen } from '../lib/when';
import { formatBytes, formatEventCount } from '../lib/units';
import { CaldavPicker } from './CaldavPicker';
import {
  MAX_SOURCES,
  serverError,
  SOURCES_FULL_TEXT,
  sourcesReducer,
  type SourceInput,
  type SourceProblem,
  type SourceText,
  type SourceReport,
  type SourceRow,
  type SourcesAction,
  type SourcesState,
} from './sources';
import { SourceLogin } from './SourceLogin';
import type { GivenLogin } from './sourceLogin';

interface Props {
  sources: SourcesState;
  /** What each row is called (sourceNames), in row order. */
  names: string[];
  /** What the editor finds wrong with the committed rows. */
  problems: SourceProblem[];
  /** How each row's feed was read last, by row key. */
  reports: ReadonlyMap<number, SourceReport>;
  /** A failed preview's words about one row's input. */
  previewError: { key: number; input: SourceInput; message: string } | null;
  onAction: (action: SourcesAction) => void;
}

const ADD_ID = 'cal-sources-add';
const inputId = (key: number, input: SourceText) => `cal-source-${key}-${input}`;

export function SourcesEditor({ sources, names, problems, reports, previewError, onAction }: Props) {
  const { rows, listed } = sources;
  const full = rows.length >= MAX_SOURCES;
  // The element to focus once the change is on screen (added, removed or moved rows).
  const focusNext = useRef<string | null>(null);
  useLayoutEffect(() => {
    const id = focusNext.current;
    if (id === null) return;
    focusNext.current = null;
    document.getElementById(id)?.focus();
  });

  const act = (action: SourcesAction, focus: (next: SourcesState) => string | null) => {
    const next = sourcesReducer(sources, action);
    if (next === sources) return;
    focusNext.current = focus(next);
    onAction(action);
  };
  const add = () => {
    if (full) return;
    act({ type: 'add' }, (next) => {
      const added = next.rows[next.rows.length - 1];
      return added ? inputId(added.key, 'url') : null;
    });
  };
  const addCaldav = (source: { url: string; label: string; auth: GivenLogin }) =>
    act({ type: 'addCaldav', ...source }, (next) => {
      const added = next.rows[next.rows.length - 1];
      return added ? inputId(added.key, 'url') : null;
    });
  const remove = (row: SourceRow) =>
    act({ type: 'remove', key: row.key }, (next) => {
      // Back to one address: the button that makes a list again. Else the feed now in its place.
      if (!next.listed) return ADD_ID;
      const at = rows.findIndex((r) => r.key === row.key);
      const successor = next.rows[Math.min(at, next.rows.length - 1)];
      return successor ? inputId(successor.key, 'url') : ADD_ID;
    });
  const move = (row: SourceRow, delta: -1 | 1) =>
    act({ type: 'move', key: row.key, delta }, (next) => {
      // The same button, unless the feed reached the end that disables it.
      const at = next.rows.findIndex((r) => r.key === row.key);
      const blocked = (delta === -1 && at === 0) || (delta === 1 && at === next.rows.length - 1);
      return `cal-source-${row.key}-${(delta === -1) !== blocked ? 'up' : 'down'}`;
    });

  const addButton = (
    <button
      id={ADD_ID}
      type="button"
      className="button cal-sources__add"
      onClick={add}
      aria-disabled={full || undefined}
      aria-describedby={full ? 'cal-sources-full' : undefined}
    >
      <Plus aria-hidden="true" size={16} />
      Add another feed
    </button>
  );

  const errorOf = (row: SourceRow, input: SourceInput) =>
    serverError(sources, row.key, input) ??
    (previewError && previewError.key === row.key && previewError.input === input ? previewError.message : undefined) ??
    problems.find((p) => p.key === row.key && p.input === input)?.message;
  const loginOf = (row: SourceRow, n: number) => (
    <SourceLogin
      rowKey={row.key}
      n={n}
      url={row.url}
      login={row.login}
      plainHttp={row.plainHttp ?? false}
      error={errorOf(row, 'auth')}
      onLogin={(action) => onAction({ type: 'login', key: row.key, action })}
      onPlainHttp={(value) => onAction({ type: 'plainHttp', key: row.key, value })}
      onCommit={() => onAction({ type: 'commit' })}
    />
  );

  if (!listed) {
    const only = rows[0];
    return (
      <div className="cal-sources cal-sources--one">
        <p className="cal-editor__url">{only?.url}</p>
        {only && loginOf(only, 1)}
        {addButton}
        <CaldavPicker full={full} onAdd={addCaldav} />
      </div>
    );
  }

  return (
    <fieldset className="cal-sources" aria-describedby="cal-sources-hint">
      <legend className="cal-sources__legend">Feeds</legend>
      <p id="cal-sources-hint" className="hint">
        The events of these feeds are merged into one calendar; the mapping and options below apply to all of them. A feed without an address is left out.
      </p>
      <ol className="cal-sources__list">
        {rows.map((row, index) => (
          <SourceRowEditor
            key={row.key}
            row={row}
            index={index}
            count={rows.length}
            name={names[index] ?? `Feed ${index + 1}`}
            report={reports.get(row.key)}
            errorOf={(input) => errorOf(row, input)}
            login={loginOf(row, index + 1)}
            onAction={onAction}
            onMove={(delta) => move(row, delta)}
            onRemove={() => remove(row)}
          />
        ))}
      </ol>
      <p id="cal-sources-prefix-hint" className="hint">
        A prefix goes before the title of each event from its feed, with a space between them: “[Work]” turns “Team meeting” into “[Work] Team meeting”.
      </p>
      <div className="cal-sources__foot">
        {addButton}
        <CaldavPicker full={full} onAdd={addCaldav} />
        <p id="cal-sources-full" className="hint" role="status">
          {full ? SOURCES_FULL_TEXT : ''}
        </p>
      </div>
    </fieldset>
  );
}

interface RowProps {
  row: SourceRow;
  index: number;
  count: number;
  name: string;
  report: SourceReport | undefined;
  /** The words about an input's value, if anything is wrong with it. */
  errorOf: (input: SourceInput) => string | undefined;
  /** The row's login (SourceLogin). */
  login: ReactNode;
  onAction: (action: SourcesAction) => void;
  onMove: (delta: -1 | 1) => void;
  onRemove: () => void;
}

function SourceRowEditor({ row, index, count, name, report, errorOf, login, onAction, onMove, onRemove }: RowProps) {
  const n = index + 1;
  const titleId = `cal-source-${row.key}-title`;
  const reportId = `cal-source-${row.key}-report`;
  const named = name === `Feed ${n}` ? `feed ${n}` : `feed ${n} (${name})`;

  const field = (input: SourceText, label: string, extra: { optional?: boolean; describedBy?: string; type?: string; placeholder?: string }) => {
    const id = inputId(row.key, input);
    const error = errorOf(input);
    const errorId = `${id}-error`;
    const describedBy = [error ? errorId : null, extra.describedBy ?? null].filter((x) => x !== null).join(' ') || undefined;
    return (
      <div className={`field cal-source__${input}`}>
        <label htmlFor={id}>
          {label}
          <span className="visually-hidden"> of feed {n}</span>
          {extra.optional && <span className="cal-source__optional"> (optional)</span>}
        </label>
        <input
          id={id}
          className={input === 'label' ? 'input' : 'input cal-mono'}
          type={extra.type ?? 'text'}
          value={row[input]}
          spellCheck={false}
          autoComplete="off"
          placeholder={extra.placeholder}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => onAction({ type: 'set', key: row.key, input, value: e.target.value })}
          // The feed is read again once the change is done, not at every key.
          onBlur={() => onAction({ type: 'commit' })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onAction({ type: 'commit' });
          }}
        />
        {error && (
          <p id={errorId} className="error-text cal-field-error">
            {error}
          </p>
        )}
      </div>
    );
  };

  return (
    <li className="cal-source" aria-labelledby={titleId}>
      <div className="cal-source__head">
        <span className="cal-source__title" id={titleId}>
          Feed {n}
          {name !== `Feed ${n}` && (
            <>
              {' '}
              <span className="cal-source__name">{name}</span>
            </>
          )}
        </span>
        <div className="cal-source__actions">
          <button
            id={`cal-source-${row.key}-up`}
            type="button"
            className="icon-button"
            aria-label={`Move feed ${n} up`}
            disabled={index === 0}
            onClick={() => onMove(-1)}
          >
            <ArrowUp aria-hidden="true" size={16} />
          </button>
          <button
            id={`cal-source-${row.key}-down`}
            type="button"
            className="icon-button"
            aria-label={`Move feed ${n} down`}
            disabled={index === count - 1}
            onClick={() => onMove(1)}
          >
            <ArrowDown aria-hidden="true" size={16} />
          </button>
          {count > 1 && (
            <button type="button" className="icon-button" aria-label={`Remove ${named}`} onClick={onRemove}>
              <Trash2 aria-hidden="true" size={16} />
            </button>
          )}
        </div>
      </div>
      {field('url', 'Address', { type: 'url', placeholder: 'https://… or webcal://…', describedBy: report ? reportId : undefined })}
      <div className="cal-source__pair">
        {field('label', 'Label', { optional: true, placeholder: 'e.g. Work' })}
        {field('prefix', 'Prefix', { optional: true, placeholder: 'e.g. [Work]', describedBy: 'cal-sources-prefix-hint' })}
      </div>
      {login}
      {report && <SourceReportLine id={reportId} report={report} />}
    </li>
  );
}

/** A sentence ends with a full stop, unless the server's words brought their own. */
const sentence = (text: string) => (/[.!?)]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** How the feed's last read went: its size, or why it failed and what is shown instead. */
function SourceReportLine({ id, report }: { id: string; report: SourceReport }) {
  if (report.error !== null) {
    return (
      <p id={id} className="cal-source__report cal-source__report--failed">
        <TriangleAlert aria-hidden="true" size={16} />
        <span>{sentence(`This feed could not be read: ${report.error}`)} The calendar shows the other feeds’ events.</span>
      </p>
    );
  }
  if (report.stale !== null) {
    return (
      <p id={id} className="cal-source__report cal-source__report--stale">
        <TriangleAlert aria-hidden="true" size={16} />
        <span>
          {sentence(`This feed could not be fetched just now: ${report.stale}`)} Showing its copy {fetchedWhen(report.fetchedAt, new Date())}.
        </span>
      </p>
    );
  }
  return (
    <p id={id} className="cal-source__report hint">
      {formatEventCount(report.eventCount)} · {formatBytes(report.sizeBytes)}
    </p>
  );
}
