// "Changed by hand": the calendar's overrides in words, each with its Undo, and those whose event
// the feed has no more marked as such (from the server's preview) instead of dropped. Thin: the
// words and the rules are overrides.ts's.
import { useLayoutEffect, useRef, useState } from 'react';
import { CircleAlert, Undo2 } from 'lucide-react';
import type { PreviewAnswer } from './api';
import type { OptionProblem, OptionsAction } from './options';
import { describeOverride, goneKeys, overrideIndexOf, overrideKey, type EventOverride, type WireOverride } from './overrides';
import type { Rendered } from './useLatest';

interface Props {
  overrides: readonly EventOverride[];
  /** The overrides of the preview asked for last: the server's answer names them by position. */
  sent: readonly WireOverride[] | undefined;
  preview: Rendered<PreviewAnswer>;
  /** The options' problems; those about overrides show at their row. */
  problems: readonly OptionProblem[];
  onAction: (action: OptionsAction) => void;
}

export const NOT_IN_FEED_TEXT = 'Not in the feed any more';

export function OverridesList({ overrides, sent, preview, problems, onAction }: Props) {
  // What the last answer said, by event: an answer comes for the newest preview asked, so its
  // positions are those of `sent` when it arrives; kept by event, an undo since cannot shift them.
  const [answered, setAnswered] = useState<{ answer: PreviewAnswer | null; gone: ReadonlySet<string> }>({ answer: null, gone: new Set() });
  if (preview.state === 'ready' && preview.value !== answered.answer) {
    setAnswered({ answer: preview.value, gone: goneKeys(sent ?? [], preview.value.unmatchedOverrides) });
  }
  const { gone } = answered;

  // Undo removes the button pressed: focus goes to the row that takes its place (or the one
  // above, or the heading), and the undo is announced.
  const undoButtons = useRef<(HTMLButtonElement | null)[]>([]);
  const heading = useRef<HTMLHeadingElement>(null);
  const focusAfterUndo = useRef<number | null>(null);
  const [announced, setAnnounced] = useState('');
  useLayoutEffect(() => {
    const at = focusAfterUndo.current;
    if (at === null) return;
    focusAfterUndo.current = null;
    const next = undoButtons.current[Math.min(at, overrides.length - 1)];
    (next ?? heading.current)?.focus();
  }, [overrides]);

  const undo = (index: number, words: string) => {
    focusAfterUndo.current = index;
    setAnnounced(`Undone: ${words}`);
    onAction({ type: 'overrides', action: { type: 'remove', index } });
  };

  const listProblems = problems.filter((p) => p.path === 'overrides');
  return (
    <section className="card cal-panel cal-overrides" aria-labelledby="cal-overrides-title">
      <div className="cal-panel__head">
        <h2 id="cal-overrides-title" ref={heading} tabIndex={-1}>
          Changed by hand
        </h2>
        {overrides.length > 0 && <span className="hint">{overrides.length === 1 ? '1 event' : `${overrides.length} events`}</span>}
      </div>
      {overrides.length === 0 ? (
        <p className="hint">No event changed by hand. To hide, retitle, move or annotate one event, use “Change this event” beside a sample.</p>
      ) : (
        <>
          <p className="hint">
            Applied after the mapping, on every publish. A change whose event the feed no longer has stays here, marked “{NOT_IN_FEED_TEXT}”, until you undo it.
          </p>
          {listProblems.map((p) => (
            <p key={p.message} className="error-text">
              {p.message}
            </p>
          ))}
          <ul className="cal-overrides__list">
            {overrides.map((o, index) => {
              const words = describeOverride(o);
              const missing = gone.has(overrideKey(o));
              const rowProblems = problems.filter((p) => overrideIndexOf(p.path) === index);
              return (
                <li key={overrideKey(o)} className={missing ? 'cal-override cal-override--gone' : 'cal-override'} data-gone={missing}>
                  <p className="cal-override__text">{words}</p>
                  {/* The line is always there, so the rows below do not move when the answer comes. */}
                  <p className="cal-override__state">
                    {missing && (
                      <>
                        <CircleAlert aria-hidden="true" size={14} />
                        <span>{NOT_IN_FEED_TEXT}</span>
                      </>
                    )}
                  </p>
                  {rowProblems.length > 0 && (
                    <ul className="error-text cal-override__problems" aria-label="Problems with this change">
                      {rowProblems.map((p) => (
                        <li key={`${p.path}-${p.message}`}>{p.message}</li>
                      ))}
                    </ul>
                  )}
                  <button
                    type="button"
                    className="button button--quiet cal-override__undo"
                    ref={(element) => {
                      undoButtons.current[index] = element;
                    }}
                    aria-label={`Undo: ${words}`}
                    onClick={() => undo(index, words)}
                  >
                    <Undo2 aria-hidden="true" size={16} />
                    Undo
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      )}
      <p className="visually-hidden" role="status">
        {announced}
      </p>
    </section>
  );
}
