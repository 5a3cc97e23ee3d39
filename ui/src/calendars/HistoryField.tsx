// "Keep past events" in the options panel (history.ts): off by default; on, the days an event the
// source stops publishing after it ended stays in the published calendar, and what that means.
import { NumberField } from '../lib/NumberField';
import { CheckRow } from './CheckRow';
import {
  HISTORY_LIMITS_TEXT,
  HISTORY_OFF_TEXT,
  HISTORY_TEXT,
  historyWhen,
  KEEP_DAYS_TEXT,
  MAX_KEEP_DAYS,
  MIN_KEEP_DAYS,
  type CalendarHistory,
} from './history';

interface Props {
  history: CalendarHistory | undefined;
  onChange: (history: CalendarHistory | undefined) => void;
}

export function HistoryField({ history, onChange }: Props) {
  return (
    <fieldset className="cal-options__group cal-history">
      <legend>Past events</legend>
      <CheckRow role="switch" checked={history !== undefined} onChange={(e) => onChange(historyWhen(e.target.checked))} aria-describedby="cal-history-hint">
        Keep past events
      </CheckRow>
      {history && (
        <NumberField
          id="cal-history-days"
          label="Days to keep"
          min={MIN_KEEP_DAYS}
          max={MAX_KEEP_DAYS}
          required
          refusal={KEEP_DAYS_TEXT}
          value={history.keepDays}
          describedBy="cal-history-hint"
          onChange={(entry) => {
            if (entry.ok && entry.value !== undefined) onChange({ keepDays: entry.value });
          }}
        />
      )}
      <p id="cal-history-hint" className="hint">
        {history ? HISTORY_TEXT : HISTORY_OFF_TEXT}
      </p>
      {history && <p className="hint">{HISTORY_LIMITS_TEXT}</p>}
    </fieldset>
  );
}
