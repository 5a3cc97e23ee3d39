// A labelled box for a whole number: min, max and step on the input, the hint and the refusal tied
// to it with aria-describedby. What is typed stays as typed; wholeNumber.ts reads it, and only an
// accepted entry carries a value, so no screen ever receives NaN, a fraction or a number out of range.
import { useId, useState, type ReactNode } from 'react';
import { formatWholeNumber, rangeMessage, readNumberInput, standsFor, type WholeNumberEntry, type WholeNumberRange } from './wholeNumber';

export interface NumberFieldProps extends WholeNumberRange {
  label: string;
  /** The value the screen holds; the box follows it when it changes from outside. */
  value: number | undefined;
  /** Every edit: the accepted value, or `{ ok: false }` while the box holds something refused. */
  onChange: (entry: WholeNumberEntry) => void;
  /** The input's id (one is made up when absent). */
  id?: string;
  /** Shown between the label and the box. */
  hint?: ReactNode;
  /** What a refused entry is told; by default the range ("A whole number from 0 to 9999."). */
  refusal?: string;
  /** Ids of the screen's own messages about this value. */
  describedBy?: string;
  /** Added to the wrapper's `field` class. */
  className?: string;
  /** Beside the box, on its row (a Save button). */
  children?: ReactNode;
}

export function NumberField({ label, value, onChange, id, hint, refusal, describedBy, className, children, ...range }: NumberFieldProps) {
  const madeUp = useId();
  const inputId = id ?? madeUp;
  const [typed, setTyped] = useState({ value: formatWholeNumber(value), badInput: false });
  // The value last seen from the screen: when it changes, the box shows it, unless its text already says it.
  const [seen, setSeen] = useState(value);
  // Object.is: a NaN from an older screen's data must not count as a change on every render.
  if (!Object.is(value, seen)) {
    setSeen(value);
    if (typed.badInput || !standsFor(typed.value, value, range)) setTyped({ value: formatWholeNumber(value), badInput: false });
  }
  const refused = !readNumberInput(typed, range).ok;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = refused ? `${inputId}-error` : undefined;
  const described = [hintId, describedBy, errorId].filter(Boolean).join(' ') || undefined;

  const input = (
    <input
      id={inputId}
      className="input"
      type="number"
      inputMode="numeric"
      min={range.min}
      max={range.max}
      step={range.step ?? 1}
      required={range.required}
      value={typed.value}
      aria-invalid={refused || undefined}
      aria-describedby={described}
      onChange={(event) => {
        const now = { value: event.target.value, badInput: event.target.validity.badInput };
        setTyped(now);
        onChange(readNumberInput(now, range));
      }}
    />
  );
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={inputId}>{label}</label>
      {hint && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {children ? (
        <div className="number-field__row">
          {input}
          {children}
        </div>
      ) : (
        input
      )}
      {refused && (
        <p id={errorId} className="error-text number-field__error">
          {refusal ?? rangeMessage(range)}
        </p>
      )}
    </div>
  );
}
