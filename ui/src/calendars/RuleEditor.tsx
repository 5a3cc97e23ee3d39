// One filter rule of the 'Filters & options' panel: include/exclude, the controls of its kind, and
// move up, move down and remove. Thin: every change is a whole new rule handed to `onChange`.
import { ArrowDown, ArrowUp, Trash2 } from 'lucide-react';
import {
  DURATION_MINUTES_TEXT,
  RULE_FLAGS,
  RULE_KIND_LABELS,
  ruleKind,
  WEEKDAY_NAMES,
  toggled,
  WEEKDAYS,
  type FilterAction,
  type FilterRule,
  type OptionProblem,
} from './options';
import { BoundFields } from './BoundFields';
import { CheckRow } from './CheckRow';

interface Props {
  rule: FilterRule;
  index: number;
  count: number;
  problems: OptionProblem[];
  onChange: (rule: FilterRule) => void;
  onMove: (delta: -1 | 1) => void;
  onRemove: () => void;
}

/** The flags a rule has, as RULE_FLAGS names them. */
const flagsOf = (flags = '') => RULE_FLAGS.filter((flag) => flags.includes(flag));

export function RuleEditor({ rule, index, count, problems, onChange, onMove, onRemove }: Props) {
  const id = (part: string) => `cal-rule-${index}-${part}`;
  const kind = ruleKind(rule);
  const title = `Rule ${index + 1}: ${RULE_KIND_LABELS[kind]}`;
  const errorId = id('error');
  const invalid = problems.length > 0;
  const described = invalid ? errorId : undefined;
  return (
    <li className="cal-rule" aria-label={title}>
      <div className="cal-rule__head">
        <span className="cal-rule__title">{title}</span>
        <div className="cal-rule__actions">
          <button type="button" className="icon-button" aria-label={`Move rule ${index + 1} up`} disabled={index === 0} onClick={() => onMove(-1)}>
            <ArrowUp aria-hidden="true" size={16} />
          </button>
          <button type="button" className="icon-button" aria-label={`Move rule ${index + 1} down`} disabled={index === count - 1} onClick={() => onMove(1)}>
            <ArrowDown aria-hidden="true" size={16} />
          </button>
          <button type="button" className="icon-button" aria-label={`Remove rule ${index + 1}`} onClick={onRemove}>
            <Trash2 aria-hidden="true" size={16} />
          </button>
        </div>
      </div>
      <div className="cal-rule__body">
        <div className="field cal-rule__action">
          <label htmlFor={id('action')}>Action</label>
          <select id={id('action')} className="select" value={rule.action} onChange={(e) => onChange({ ...rule, action: e.target.value as FilterAction })}>
            <option value="exclude">Hide events that match</option>
            <option value="include">Keep only events that match</option>
          </select>
        </div>
        {'field' in rule && (
          <>
            <div className="field">
              <label htmlFor={id('field')}>Field</label>
              <input
                id={id('field')}
                className="input cal-mono"
                value={rule.field}
                list="cal-rule-fields"
                spellCheck={false}
                aria-describedby={described}
                onChange={(e) => onChange({ ...rule, field: e.target.value.toUpperCase() })}
              />
            </div>
            <div className="field">
              <label htmlFor={id('pattern')}>Pattern (regular expression)</label>
              <input
                id={id('pattern')}
                className="input cal-mono"
                value={rule.pattern}
                spellCheck={false}
                placeholder="^Canceled:"
                aria-invalid={invalid || undefined}
                aria-describedby={described}
                onChange={(e) => onChange({ ...rule, pattern: e.target.value })}
              />
            </div>
            <fieldset className="cal-rule__flags">
              <legend>Flags</legend>
              {RULE_FLAGS.map((flag) => (
                <CheckRow
                  key={flag}
                  checked={(rule.flags ?? '').includes(flag)}
                  onChange={(e) => onChange({ ...rule, flags: toggled(RULE_FLAGS, flagsOf(rule.flags), flag, e.target.checked).join('') })}
                >
                  <span className="cal-mono">{flag}</span>
                </CheckRow>
              ))}
            </fieldset>
          </>
        )}
        {'allDay' in rule && (
          <div className="field">
            <label htmlFor={id('allday')}>Events</label>
            <select
              id={id('allday')}
              className="select"
              value={rule.allDay ? 'yes' : 'no'}
              onChange={(e) => onChange({ ...rule, allDay: e.target.value === 'yes' })}
            >
              <option value="yes">All-day events</option>
              <option value="no">Timed events</option>
            </select>
          </div>
        )}
        {'weekdays' in rule && (
          <fieldset className="cal-rule__days" aria-describedby={described}>
            <legend>Starting on</legend>
            {WEEKDAYS.map((day) => (
              <CheckRow
                key={day}
                checked={rule.weekdays.includes(day)}
                onChange={(e) => onChange({ ...rule, weekdays: toggled(WEEKDAYS, rule.weekdays, day, e.target.checked) })}
              >
                {WEEKDAY_NAMES[day]}
              </CheckRow>
            ))}
          </fieldset>
        )}
        {'timeOfDay' in rule && (
          <div className="cal-rule__pair">
            <div className="field">
              <label htmlFor={id('from')}>Starting from</label>
              <input
                id={id('from')}
                type="time"
                className="input"
                value={rule.timeOfDay.from}
                aria-describedby={described}
                onChange={(e) => onChange({ ...rule, timeOfDay: { ...rule.timeOfDay, from: e.target.value } })}
              />
            </div>
            <div className="field">
              <label htmlFor={id('to')}>until before (may pass midnight)</label>
              <input
                id={id('to')}
                type="time"
                className="input"
                value={rule.timeOfDay.to}
                aria-describedby={described}
                onChange={(e) => onChange({ ...rule, timeOfDay: { ...rule.timeOfDay, to: e.target.value } })}
              />
            </div>
          </div>
        )}
        {'duration' in rule && (
          <BoundFields
            refusal={DURATION_MINUTES_TEXT}
            describedBy={described}
            bounds={[
              {
                id: id('min'),
                label: 'At least (minutes)',
                value: rule.duration.minMinutes,
                onChange: (minMinutes) => onChange({ ...rule, duration: { ...rule.duration, minMinutes } }),
              },
              {
                id: id('max'),
                label: 'At most (minutes)',
                value: rule.duration.maxMinutes,
                onChange: (maxMinutes) => onChange({ ...rule, duration: { ...rule.duration, maxMinutes } }),
              },
            ]}
          />
        )}
        {'status' in rule && (
          <div className="field">
            <label htmlFor={id('status')}>STATUS is</label>
            <select id={id('status')} className="select" value={rule.status} onChange={(e) => onChange({ ...rule, status: e.target.value })}>
              {['CANCELLED', 'TENTATIVE', 'CONFIRMED'].map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
        )}
        {'uid' in rule && (
          <>
            <div className="field">
              <label htmlFor={id('uid')}>UID</label>
              <input
                id={id('uid')}
                className="input cal-mono"
                value={rule.uid}
                spellCheck={false}
                aria-describedby={described}
                onChange={(e) => onChange({ ...rule, uid: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={id('rid')}>Only the occurrence (RECURRENCE-ID, optional)</label>
              <input
                id={id('rid')}
                className="input cal-mono"
                value={rule.recurrenceId ?? ''}
                spellCheck={false}
                placeholder="Whole series"
                onChange={(e) => onChange({ ...rule, recurrenceId: e.target.value })}
              />
            </div>
          </>
        )}
        {'component' in rule && (
          <div className="field">
            <label htmlFor={id('component')}>Component</label>
            <select
              id={id('component')}
              className="select"
              value={rule.component}
              onChange={(e) => onChange({ ...rule, component: e.target.value === 'VJOURNAL' ? 'VJOURNAL' : 'VTODO' })}
            >
              <option value="VTODO">Tasks (VTODO)</option>
              <option value="VJOURNAL">Journal entries (VJOURNAL)</option>
            </select>
          </div>
        )}
      </div>
      {invalid && (
        <p id={errorId} className="error-text cal-field-error">
          {problems.map((p) => p.message).join(' · ')}
        </p>
      )}
    </li>
  );
}
