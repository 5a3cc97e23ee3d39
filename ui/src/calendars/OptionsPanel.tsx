// 'Filters & options' (issue 14): filter rules, the date window, time-zone repair, alarms and
// privacy, with the live "keeps N of M events" and the output's size against Google's limit, both
// from the server's engine (POST /api/preview). Thin: the logic is in options.ts.
import { useState } from 'react';
import { Plus, TriangleAlert } from 'lucide-react';
import { NumberField } from '../lib/NumberField';
import type { PreviewAnswer } from './api';
import { formatBytes } from '../lib/units';
import {
  ALARM_MINUTES_TEXT,
  DEFAULT_WINDOW,
  GOOGLE_LIMIT_BYTES,
  keepsText,
  occurrencesText,
  MAX_ALARM_MINUTES,
  MAX_WINDOW_DAYS,
  RULE_KIND_LABELS,
  RULE_KINDS,
  suggestWindow,
  type CalendarOptions,
  type OptionProblem,
  type OptionsAction,
  type RuleKind,
  WINDOW_DAYS_TEXT,
} from './options';
import { BoundFields } from './BoundFields';
import { CheckRow } from './CheckRow';
import { HistoryField } from './HistoryField';
import { AgendaField } from './AgendaField';
import { isOverridePath } from './overrides';
import { RuleEditor } from './RuleEditor';
import type { Rendered } from './useLatest';

interface Props {
  options: CalendarOptions;
  problems: OptionProblem[];
  preview: Rendered<PreviewAnswer>;
  onAction: (action: OptionsAction) => void;
}

const FIELD_SUGGESTIONS = ['SUMMARY', 'DESCRIPTION', 'LOCATION', 'CATEGORIES', 'STATUS', 'ORGANIZER', 'ATTENDEE', 'CLASS', 'TRANSP', 'URL'];

export function OptionsPanel({ options, problems, preview, onAction }: Props) {
  const [kind, setKind] = useState<RuleKind>('property');
  const ruleProblems = (i: number) => problems.filter((p) => p.path === `filters[${i}]` || p.path.startsWith(`filters[${i}].`));
  // Those about events changed by hand show in their own list (OverridesList).
  const otherProblems = problems.filter((p) => !p.path.startsWith('filters[') && !isOverridePath(p.path));
  const window = options.window;
  const alarms = options.alarms ?? 'keep';
  const answer = preview.state === 'ready' ? preview.value : null;
  const suggestion = answer ? suggestWindow(answer.outputBytes, window) : null;
  return (
    <section className="card cal-panel cal-options" aria-labelledby="cal-options-title">
      <div className="cal-panel__head">
        <h2 id="cal-options-title">Filters &amp; options</h2>
      </div>
      <div className="cal-options__summary" role="status" aria-live="polite" aria-atomic="true">
        {preview.state === 'failed' ? (
          <span className="error-text">The preview could not be made: {preview.message}</span>
        ) : answer ? (
          <>
            <strong data-testid="cal-keeps">The hosted feed {keepsText(answer.keptCount, answer.eventCount)}</strong>
            {answer.occurrences && <span data-testid="cal-occurrences">{occurrencesText(answer.occurrences)}</span>}
            <span className={answer.outputBytes > GOOGLE_LIMIT_BYTES ? 'cal-options__size cal-options__size--over' : 'cal-options__size'}>
              {formatBytes(answer.outputBytes)} of Google Calendar’s ~1 MB limit
            </span>
          </>
        ) : problems.length > 0 ? (
          <span className="hint">Fix the options marked below to count the events the hosted feed keeps.</span>
        ) : (
          <span className="hint">Counting the events the hosted feed keeps…</span>
        )}
      </div>
      {suggestion && (
        <div className="alert alert--warning cal-warning" role="note">
          <TriangleAlert aria-hidden="true" size={16} />
          <span>
            Google Calendar may stop reading this feed: it is over 1 MB. A window of {suggestion.pastDays} days back and {suggestion.futureDays} days ahead
            should bring it under.{' '}
            <button type="button" className="button button--quiet" onClick={() => onAction({ type: 'setWindow', window: suggestion })}>
              Use this window
            </button>
          </span>
        </div>
      )}

      <div className="cal-options__groups">
        <fieldset className="cal-options__group cal-options__group--filters">
          <legend>Filters</legend>
          <p className="hint">
            Applied in order: an event is kept when every “keep only” rule matches it and no “hide” rule does. A recurring event and its changed occurrences go
            together.
          </p>
          <CheckRow checked={options.occurrences === 'each'} onChange={(e) => onAction({ type: 'setEachOccurrence', each: e.target.checked })}>
            Judge each occurrence of a repeating event
          </CheckRow>
          <p className="hint">
            Rules on days, times and lengths, and the date window, then drop single occurrences (so “weekdays only” leaves a daily event on weekdays); otherwise
            a repeating event is kept or dropped whole, by its first occurrence.
          </p>
          {options.filters.length === 0 ? (
            <p className="hint">No filters: every event is kept.</p>
          ) : (
            <ol className="cal-rules">
              {options.filters.map((rule, index) => (
                <RuleEditor
                  // Rules have no ids; the position is what the user sees and what paths name.
                  key={index}
                  rule={rule}
                  index={index}
                  count={options.filters.length}
                  problems={ruleProblems(index)}
                  onChange={(next) => onAction({ type: 'updateRule', index, rule: next })}
                  onMove={(delta) => onAction({ type: 'moveRule', index, delta })}
                  onRemove={() => onAction({ type: 'removeRule', index })}
                />
              ))}
            </ol>
          )}
          <datalist id="cal-rule-fields">
            {FIELD_SUGGESTIONS.map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
          <div className="cal-options__add">
            <label htmlFor="cal-rule-kind" className="visually-hidden">
              Kind of rule to add
            </label>
            <select id="cal-rule-kind" className="select" value={kind} onChange={(e) => setKind(e.target.value as RuleKind)}>
              {RULE_KINDS.map((k) => (
                <option key={k} value={k}>
                  {RULE_KIND_LABELS[k]}
                </option>
              ))}
            </select>
            <button type="button" className="button" onClick={() => onAction({ type: 'addRule', kind })}>
              <Plus aria-hidden="true" size={16} />
              Add rule
            </button>
          </div>
        </fieldset>

        <fieldset className="cal-options__group">
          <legend>Date window</legend>
          <CheckRow
            checked={window !== undefined}
            onChange={(e) => onAction({ type: 'setWindow', window: e.target.checked ? { ...DEFAULT_WINDOW } : undefined })}
          >
            Only keep events near today
          </CheckRow>
          {window && (
            <BoundFields
              max={MAX_WINDOW_DAYS}
              refusal={WINDOW_DAYS_TEXT}
              bounds={[
                {
                  id: 'cal-window-past',
                  label: 'Days back',
                  value: window.pastDays,
                  onChange: (pastDays) => onAction({ type: 'setWindow', window: { ...window, pastDays } }),
                },
                {
                  id: 'cal-window-future',
                  label: 'Days ahead',
                  value: window.futureDays,
                  onChange: (futureDays) => onAction({ type: 'setWindow', window: { ...window, futureDays } }),
                },
              ]}
            />
          )}
          <p className="hint">Counted from the moment a calendar app fetches the feed; an empty box has no limit on that side.</p>
        </fieldset>

        <HistoryField history={options.history} onChange={(history) => onAction({ type: 'setHistory', history })} />

        <AgendaField agenda={options.agenda === true} onChange={(agenda) => onAction({ type: 'setAgenda', agenda })} />

        <fieldset className="cal-options__group">
          <legend>Time zones</legend>
          <CheckRow
            role="switch"
            checked={options.timezones === 'repair'}
            onChange={(e) => onAction({ type: 'setTimezones', timezones: e.target.checked ? 'repair' : 'keep' })}
          >
            Repair time zones
          </CheckRow>
          <p className="hint">
            Outlook’s Windows zone names become standard ones, every zone used gets its definition, and times without a zone get the calendar’s own zone, so
            events show at the right hour in Google and Apple calendars.
          </p>
        </fieldset>

        <fieldset className="cal-options__group">
          <legend>Alarms</legend>
          <CheckRow type="radio" name="cal-alarms" checked={alarms === 'keep'} onChange={() => onAction({ type: 'setAlarms', alarms: 'keep' })}>
            Keep the feed’s alarms
          </CheckRow>
          <CheckRow type="radio" name="cal-alarms" checked={alarms === 'strip'} onChange={() => onAction({ type: 'setAlarms', alarms: 'strip' })}>
            Remove all alarms
          </CheckRow>
          <CheckRow
            type="radio"
            name="cal-alarms"
            checked={typeof alarms === 'object'}
            onChange={() => onAction({ type: 'setAlarms', alarms: { addMinutesBefore: 15 } })}
          >
            One alarm before each event
          </CheckRow>
          {typeof alarms === 'object' && (
            <NumberField
              id="cal-alarms-minutes"
              label="Minutes before"
              min={0}
              max={MAX_ALARM_MINUTES}
              required
              refusal={ALARM_MINUTES_TEXT}
              value={alarms.addMinutesBefore}
              onChange={(entry) => {
                if (entry.ok && entry.value !== undefined) onAction({ type: 'setAlarms', alarms: { addMinutesBefore: entry.value } });
              }}
            />
          )}
          <p className="hint">Only Apple Calendar and Thunderbird honour alarms in subscribed calendars; Google and Outlook ignore them.</p>
        </fieldset>

        <fieldset className="cal-options__group">
          <legend>Privacy</legend>
          <CheckRow type="radio" name="cal-privacy" checked={options.privacy !== 'busy'} onChange={() => onAction({ type: 'setPrivacy', privacy: 'full' })}>
            Full details
          </CheckRow>
          <CheckRow type="radio" name="cal-privacy" checked={options.privacy === 'busy'} onChange={() => onAction({ type: 'setPrivacy', privacy: 'busy' })}>
            Busy only: every title becomes “Busy”; descriptions, places, people and links are removed
          </CheckRow>
        </fieldset>
      </div>

      {otherProblems.length > 0 && (
        <ul className="error-text cal-field-error" aria-label="Problems with the options">
          {otherProblems.map((p) => (
            <li key={`${p.path}-${p.message}`}>
              {p.path}: {p.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
