// 'Sample Event Fields' (SPEC.md 2): one event of the feed at a time, n/total over the whole feed,
// and per field a button that opens the regex dialog for it.
import { ChevronLeft, ChevronRight, EyeOff, PencilLine, Regex } from 'lucide-react';
import { MAPPING_FIELDS } from './calendar';
import { DecisionNote } from './DecisionNote';
import { readableIcsDate } from './icsDate';
import type { Decision } from './options';
import { canMove, counter, currentEvent, orderedKeys, type Samples } from './samples';
import { SourceTag, type EventSource } from './SourceTag';

interface Props {
  samples: Samples | null;
  loading: boolean;
  /** Whether the hosted feed keeps the sample shown, and why not (from the server's preview). */
  decision?: Decision;
  /** The server has not answered yet: the note holds its place. */
  decisionPending: boolean;
  /** The feed the sample came from, in a calendar of several feeds. */
  source?: EventSource;
  /** What the panel says when there is no sample and nothing loading (the feed could not be read). */
  noSample?: string;
  onMove: (delta: number) => void;
  onInsert: (field: string) => void;
  /** Hides the sample (`one`: the occurrence shown) or its whole series, as a change by hand. */
  onHide: (what: 'one' | 'series') => void;
  /** The sample is part of a series: it can be hidden whole, and "this" is one occurrence. */
  recurring?: boolean;
  /** Opens "Change this event" (EventChangeDialog) for the sample. */
  onChangeEvent?: () => void;
  /** What the sample was changed by hand, in words ('' for nothing). */
  changed?: string;
}

export function SamplePanel({
  samples,
  loading,
  decision,
  decisionPending,
  source,
  noSample,
  onMove,
  onInsert,
  onHide,
  recurring = false,
  onChangeEvent,
  changed,
}: Props) {
  const event = samples ? currentEvent(samples) : undefined;
  const keys = event ? orderedKeys(event, MAPPING_FIELDS) : [];
  const uid = event?.UID ?? '';
  return (
    <section className="card cal-panel cal-samples" aria-labelledby="cal-samples-title">
      <div className="cal-panel__head">
        <h2 id="cal-samples-title">Sample Event Fields</h2>
        <div className="cal-samples__nav">
          <button
            type="button"
            className="icon-button"
            aria-label="Previous sample"
            disabled={!samples || loading || !canMove(samples, -1)}
            onClick={() => onMove(-1)}
          >
            <ChevronLeft aria-hidden="true" size={18} />
          </button>
          <span className="cal-samples__counter" role="status" title="Sample shown / events in the feed">
            {counter(samples)}
          </span>
          <button
            type="button"
            className="icon-button"
            aria-label="Next sample"
            disabled={!samples || loading || !canMove(samples, 1)}
            onClick={() => onMove(1)}
          >
            <ChevronRight aria-hidden="true" size={18} />
          </button>
        </div>
      </div>
      {!samples ? (
        // While loading, the hint holds about the room the fields will take, so the panels below
        // do not jump down when they arrive.
        <p className={loading ? 'hint cal-samples__loading' : 'hint'}>
          {loading ? 'Loading…' : (noSample ?? 'No sample: the feed could not be read. Try Refetch.')}
        </p>
      ) : samples.total === 0 ? (
        <p className="hint">The feed has no events.</p>
      ) : !event ? (
        <p className="hint">Loading…</p>
      ) : (
        <>
          {source && <SourceTag source={source} />}
          <DecisionNote decision={decision} pending={decisionPending} />
          {uid !== '' && (
            <div className="cal-samples__hide">
              {/* Hiding is a change by hand, listed in "Changed by hand" with the dialog's. */}
              <button type="button" className="button button--quiet" onClick={() => onHide('one')}>
                <EyeOff aria-hidden="true" size={16} />
                {recurring ? 'Hide this occurrence' : 'Hide this event'}
              </button>
              {recurring && (
                <button type="button" className="button button--quiet" onClick={() => onHide('series')}>
                  <EyeOff aria-hidden="true" size={16} />
                  Hide this series
                </button>
              )}
              {onChangeEvent && (
                <button type="button" className="button button--quiet" onClick={onChangeEvent} aria-haspopup="dialog">
                  <PencilLine aria-hidden="true" size={16} />
                  Change this event
                </button>
              )}
            </div>
          )}
          {uid !== '' && changed && <p className="hint cal-samples__changed">Changed by hand: {changed}</p>}
          <p className="hint cal-fields__count">{keys.length === 1 ? '1 field' : `${keys.length} fields`} in this event</p>
          <dl className="cal-fields" aria-label="Fields of the sample event">
            {keys.map((key) => (
              <div className="cal-fields__row" key={key}>
                <dt className="cal-fields__key">{key}</dt>
                <dd className="cal-fields__value">{event[key] ? event[key] : <span className="hint">(empty)</span>}</dd>
                {event[key] && readableIcsDate(event[key], event.TZID) !== null && (
                  <dd className="cal-fields__readable">{readableIcsDate(event[key], event.TZID)}</dd>
                )}
                <dd className="cal-fields__action">
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Insert ${key}`}
                    title={`Insert ${key} (with an optional regex)`}
                    onClick={() => onInsert(key)}
                  >
                    <Regex aria-hidden="true" size={16} />
                  </button>
                </dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </section>
  );
}
