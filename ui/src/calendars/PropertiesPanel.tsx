// "Event properties" beside the Template Mapping (properties.ts): "Show as free", a category and a
// colour in plain words, the raw templates for those who want them, and the events' UIDs, with the
// offer of UIDs made from their content when the feed's changed at its last fetch.
import type { ChangeEvent } from 'react';
import { CheckRow } from './CheckRow';
import type { OptionProblem, OptionsAction } from './options';
import {
  categoryOf,
  colourOf,
  CSS_COLOURS,
  EVENT_PROPERTIES,
  PROPERTY_WORDS,
  showsAsFree,
  UIDS_BUTTON,
  UIDS_ON_TEXT,
  UIDS_UNDO_BUTTON,
  uidsChangedText,
  withCategory,
  withColour,
  withProperty,
  withShowAsFree,
  type CalendarProperties,
  type UidMode,
  type UidsChanged,
} from './properties';

interface Props {
  properties: CalendarProperties | undefined;
  uids: UidMode | undefined;
  /** Privacy "Busy only": the category and the link are left out of every event. */
  busy: boolean;
  problems: readonly OptionProblem[];
  /** The feeds (named as the editor names them, null for a calendar of one) whose UIDs changed. */
  uidsChanged: readonly { label: string | null; changed: UidsChanged }[];
  onAction: (action: OptionsAction) => void;
}

export function PropertiesPanel({ properties, uids, busy, problems, uidsChanged, onAction }: Props) {
  const set = (next: CalendarProperties | undefined) => onAction({ type: 'setProperties', properties: next });
  const category = categoryOf(properties);
  const colour = colourOf(properties);
  const named = (CSS_COLOURS as readonly string[]).includes(colour);
  const problemAt = (key: string) => problems.filter((p) => p.path === `properties.${key}`);
  return (
    <section className="card cal-panel cal-props" aria-labelledby="cal-props-title">
      <div className="cal-panel__head">
        <h2 id="cal-props-title">Event properties</h2>
      </div>
      <p className="hint">Set on every event of the published calendar, after the Template Mapping.</p>
      <div className="cal-props__plain">
        <div className="cal-props__item">
          <CheckRow
            role="switch"
            checked={showsAsFree(properties)}
            onChange={(e) => set(withShowAsFree(properties, e.target.checked))}
            aria-describedby="cal-props-free-hint"
          >
            Show as free
          </CheckRow>
          <p id="cal-props-free-hint" className="hint">
            Calendar apps do not count these events as busy time.
          </p>
        </div>
        <div className="field cal-props__item">
          <label htmlFor="cal-props-category">Category</label>
          <input
            id="cal-props-category"
            className="input"
            value={category ?? ''}
            disabled={category === null}
            placeholder="For example: Work"
            maxLength={64}
            aria-describedby="cal-props-category-hint"
            onChange={(e: ChangeEvent<HTMLInputElement>) => set(withCategory(properties, e.target.value.replace(/,/g, ' ')))}
          />
          <p id="cal-props-category-hint" className="hint">
            {category === null
              ? 'Set by the CATEGORIES template below.'
              : busy
                ? 'Left out while privacy is “Busy only”: categories can say what an event is.'
                : 'Added to each event’s own categories.'}
          </p>
        </div>
        <div className="field cal-props__item">
          <label htmlFor="cal-props-colour">Colour</label>
          <div className="cal-props__colour">
            <span className="cal-props__swatch" aria-hidden="true" style={named ? { background: colour } : undefined} />
            <select
              id="cal-props-colour"
              className="select"
              value={colour}
              aria-describedby="cal-props-colour-hint"
              onChange={(e) => set(withColour(properties, e.target.value))}
            >
              <option value="">No colour</option>
              {!named && colour !== '' && <option value={colour}>{properties?.COLOR} (a template)</option>}
              {CSS_COLOURS.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <p id="cal-props-colour-hint" className="hint">
            Apps that show an event’s own colour draw it in this one.
          </p>
        </div>
      </div>
      <details className="cal-props__raw">
        <summary>Templates for these properties</summary>
        <p className="hint">
          In the mapping’s syntax, such as <span className="cal-mono">{'${CATEGORIES},Work'}</span>. Left empty, each event keeps its own; a template whose
          result is empty removes the property. A result that is not a valid value leaves the event’s own.
        </p>
        {EVENT_PROPERTIES.map((key) => {
          const own = problemAt(key);
          const errorId = `cal-props-${key}-error`;
          return (
            <div className="field" key={key}>
              <label htmlFor={`cal-props-${key}`}>
                <span className="cal-mono">{key}</span> <span className="hint">{PROPERTY_WORDS[key]}</span>
              </label>
              <input
                id={`cal-props-${key}`}
                className="input cal-mono"
                value={properties?.[key] ?? ''}
                spellCheck={false}
                aria-invalid={own.length > 0 || undefined}
                aria-describedby={own.length > 0 ? errorId : undefined}
                onChange={(e) => set(withProperty(properties, key, e.target.value === '' ? undefined : e.target.value))}
              />
              {own.length > 0 && (
                <p id={errorId} className="error-text cal-field-error">
                  {own.map((p) => p.message).join(' · ')}
                </p>
              )}
            </div>
          );
        })}
      </details>
      <div className="cal-props__uids" role="group" aria-labelledby="cal-uids-title">
        <h3 id="cal-uids-title" className="cal-props__subtitle">
          Event UIDs
        </h3>
        {uids === 'content' ? (
          <>
            <p className="hint">{UIDS_ON_TEXT}</p>
            <button type="button" className="button button--quiet" onClick={() => onAction({ type: 'setUids', uids: undefined })}>
              {UIDS_UNDO_BUTTON}
            </button>
          </>
        ) : (
          <>
            {uidsChanged.length > 0 ? (
              uidsChanged.map(({ label, changed }) => (
                <p key={label ?? ''} className="cal-props__notice">
                  {uidsChangedText(changed, label)}
                </p>
              ))
            ) : (
              <p className="hint">Events keep the UIDs their feed gives them.</p>
            )}
            <button
              type="button"
              className={uidsChanged.length > 0 ? 'button button--primary' : 'button'}
              onClick={() => onAction({ type: 'setUids', uids: 'content' })}
            >
              {UIDS_BUTTON}
            </button>
          </>
        )}
      </div>
    </section>
  );
}
