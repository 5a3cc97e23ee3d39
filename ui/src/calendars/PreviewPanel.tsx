// 'Preview (from sample)' (SPEC.md 2): the sample event rendered by the server's engine, with the
// changes made to it by hand, so it is what subscribers will get.
import type { MappingRender } from './api';
import { PREVIEW_FIELDS } from './calendar';
import { DecisionNote } from './DecisionNote';
import { editedFields } from './eventChange';
import type { Decision } from './options';
import { describeChange, type EventOverride } from './overrides';
import { SourceTag, type EventSource } from './SourceTag';
import type { Rendered } from './useLatest';

interface Props {
  rendered: Rendered<MappingRender>;
  hasSample: boolean;
  /** Whether the hosted feed keeps this sample at all. */
  decision?: Decision;
  /** The server has not decided yet: the note holds its place. */
  decisionPending: boolean;
  /** The feed the sample came from, in a calendar of several feeds. */
  source?: EventSource;
  /** The changes by hand that apply to the sample (eventChange.ts's editsOn). */
  edits?: readonly EventOverride[];
}

export function PreviewPanel({ rendered, hasSample, decision, decisionPending, source, edits = [] }: Props) {
  const retitled = edits.some((e) => e.summary);
  const fields = rendered.state === 'ready' ? editedFields(rendered.value.fields, edits) : {};
  const prefix = source?.prefix ?? '';
  return (
    <section className="card cal-panel cal-preview" aria-labelledby="cal-preview-title">
      <div className="cal-panel__head">
        <h2 id="cal-preview-title">Preview (from sample)</h2>
      </div>
      {!hasSample ? (
        <p className="hint">The preview shows once the feed has a sample event.</p>
      ) : rendered.state === 'failed' ? (
        <p className="error-text">The preview could not be rendered: {rendered.message}</p>
      ) : rendered.state === 'idle' ? (
        // The fields appear together with their values: rows of '…' would be pushed about as the
        // values arrive. Later renders update the rows in place.
        <p className="hint">Rendering the preview…</p>
      ) : (
        <>
          {source && <SourceTag source={source} />}
          <DecisionNote decision={decision} pending={decisionPending} />
          <dl className="cal-preview__list">
            {PREVIEW_FIELDS.map((field) => {
              const value = fields[field];
              const errors = rendered.value.errors.filter((e) => e.field === field);
              return (
                <div className="cal-preview__row" key={field}>
                  <dt className="cal-mono">{field}</dt>
                  <dd data-field={field} className="cal-preview__value">
                    {value === undefined ? <span className="hint">…</span> : value === '' ? <span className="hint">(empty)</span> : value}
                  </dd>
                  {errors.map((e) => (
                    <dd key={`${e.position}-${e.message}`} className="error-text cal-field-error">
                      {e.message} (the value is left unchanged)
                    </dd>
                  ))}
                </div>
              );
            })}
          </dl>
          {edits.length > 0 && (
            <p className="hint cal-preview__changed">
              With your change by hand: {edits.map(describeChange).join('; ')}.
              {retitled && prefix.trim() !== '' && ` The new title replaces the whole title, so the feed’s prefix “${prefix.trim()}” is not added to it.`}
            </p>
          )}
        </>
      )}
    </section>
  );
}
