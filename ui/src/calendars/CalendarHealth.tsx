// A published calendar's health in words (issue 23; the words are health.ts's): the editor's
// section under the hosted banner, with "Check again", and the one line each hosted calendar has in
// the list. Each is a box of one size whatever the answer (calendars.css), so nothing below moves:
// the editor's lines are folded to the number it keeps room for (foldLines), and the list's line
// ends in an ellipsis when it is longer than its room (the editor says all of it).
import { useRef } from 'react';
import { RefreshCw, TriangleAlert } from 'lucide-react';
import { failingText, FLAG_TEXT, foldLines, summaryLine } from '../lib/feedHealth';
import { clockTime } from '../lib/when';
import type { HealthResult, HealthView } from './useCalendarHealth';
import { useOverflowing } from './useOverflowing';

/** "Source failing", with an icon: never colour alone. */
function Flag() {
  return (
    <span className="cal-health__flag">
      <TriangleAlert aria-hidden="true" size={14} />
      {FLAG_TEXT}
      <span className="visually-hidden">:</span>
    </span>
  );
}

export function CalendarHealth({ view, onCheck }: { view: HealthView; onCheck: () => void }) {
  const busy = view.state === 'checking';
  const result = view.state === 'done' ? view.result : view.last;
  const report = result?.kind === 'ready' ? result.report : null;
  const body = useRef<HTMLDivElement>(null);
  // Only a reason from the server long enough to outgrow the box scrolls it; then the keyboard can too.
  const scrolls = useOverflowing(body, report);
  return (
    <section className="card cal-health" aria-labelledby="cal-health-title">
      <div className="cal-health__head">
        <h2 id="cal-health-title">Feed health</h2>
        <button type="button" className="button cal-health__check" onClick={onCheck} aria-disabled={busy || undefined}>
          <RefreshCw aria-hidden="true" size={16} className={busy ? 'cal-spin' : undefined} />
          Check again
        </button>
      </div>
      {/* Polite: a check's answer is read out when it comes, without interrupting. */}
      <div ref={body} className="cal-health__body" aria-live="polite" aria-busy={busy} tabIndex={scrolls ? 0 : undefined}>
        {report ? (
          <ul className="cal-health__lines">
            {foldLines(report).map((line) => (
              <li key={line.text} className={line.failure ? 'cal-health__failure' : undefined}>
                {report.flagged && line.failure && <Flag />}
                {line.text}
              </li>
            ))}
          </ul>
        ) : (
          <p className="hint">{result?.kind === 'failed' ? result.message : 'Checking how this feed is doing…'}</p>
        )}
        {/* Changes with every answer, so a check that finds nothing new is still heard. */}
        {result?.kind === 'ready' && !busy && <p className="visually-hidden">Checked at {clockTime(result.checkedAt, {}, true)}.</p>}
      </div>
    </section>
  );
}

/**
 * The list's line: a failing calendar's failure behind the flag (failing for a day) or behind how
 * many feeds fail (at once), else its latest calendar app.
 */
export function CalendarHealthLine({ health }: { health: HealthResult | 'checking' }) {
  if (health === 'checking') return <p className="cal-health-line hint">Checking this feed…</p>;
  if (health.kind === 'failed') return <p className="cal-health-line hint">{health.message}</p>;
  const { report } = health;
  const line = summaryLine(report);
  const failing = !report.flagged && report.failing > 0;
  return (
    <p className={`cal-health-line${report.flagged ? ' cal-health-line--flagged' : failing ? ' cal-health-line--failing' : ''}`} title={line}>
      {report.flagged && <Flag />}
      {failing && (
        <span className="cal-health__failing">
          <TriangleAlert aria-hidden="true" size={14} />
          {failingText(report.failing)}
          <span className="visually-hidden">:</span>
        </span>
      )}
      {line}
    </p>
  );
}
