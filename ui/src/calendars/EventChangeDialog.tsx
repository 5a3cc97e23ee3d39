// "Change this event": one sample event (or occurrence) hidden, retitled, moved in time or given a
// note, saved as an override (README "Events changed by hand"). A native modal <dialog> traps
// focus and closes on Escape; focus goes back to the button that opened it. A tap beside it does
// not close it, so nothing typed is lost to a stray touch. Thin: the form's rules are eventChange.ts's.
import { useEffect, useId, useLayoutEffect, useRef, useState, type SyntheticEvent } from 'react';
import { X } from 'lucide-react';
import { NumberField } from '../lib/NumberField';
import { CheckRow } from './CheckRow';
import {
  amountText,
  checkDraft,
  draftFor,
  FULL_TEXT,
  hasRoom,
  maxAmount,
  overrideFromDraft,
  replacesOne,
  unitsFor,
  type ChangeDraft,
  type EventTargets,
  type ShiftDirection,
  type ShiftUnit,
} from './eventChange';
import { readableIcsDate } from './icsDate';
import type { EventOverride } from './overrides';
import type { SampleEvent } from './samples';

interface Props {
  event: SampleEvent;
  targets: EventTargets;
  /** The calendar's overrides: the form opens on this event's own, and says when saving replaces one. */
  overrides: readonly EventOverride[];
  /** The prefix the sample's feed puts before its titles ('' when none): a new title replaces it too. */
  prefix?: string;
  onSave: (override: EventOverride) => void;
  onClose: () => void;
}

const CHANGE_LABEL = (t: EventTargets) =>
  t.change.recurrenceId ? 'Change this occurrence' : t.recurring ? 'Change every occurrence of the series' : 'Change this event';

export function EventChangeDialog({ event, targets, overrides, prefix = '', onSave, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleInput = useRef<HTMLInputElement>(null);
  const [draft, setDraft] = useState<ChangeDraft>(() => draftFor(targets, overrides));
  const [amountRefused, setAmountRefused] = useState(false);
  // The form's own message ("nothing would change") waits for a first Save.
  const [tried, setTried] = useState(false);
  const ids = useId();
  const id = (part: string) => `${ids}-${part}`;

  useLayoutEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement;
    if (element && !element.open) element.showModal();
    // showModal focuses the first control (Close); the choice made last, or the title, comes next.
    const checked = element?.querySelector<HTMLInputElement>('input[type=radio]:checked');
    (checked?.value === 'change' ? titleInput.current : checked)?.focus();
    return () => {
      if (element?.open) element.close();
      // The dialog leaves the DOM when closed; the browser's own focus return needs it to stay.
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);

  // Escape, Close, Cancel and Save all end in the dialog's close event.
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    // A close queued by an unmount that React undid (StrictMode) finds the dialog open again.
    const closed = () => {
      if (!element.open) onClose();
    };
    element.addEventListener('close', closed);
    return () => element.removeEventListener('close', closed);
  }, [onClose]);

  const close = () => dialog.current?.close();
  const update = (change: Partial<ChangeDraft>) => setDraft((current) => ({ ...current, ...change }));
  const problems = checkDraft(draft, amountRefused);
  const units = unitsFor(targets);
  const changing = draft.choice === 'change';
  const replaces = replacesOne(targets, draft, overrides);
  const room = hasRoom(targets, draft, overrides);

  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    setTried(true);
    if (!room) return;
    const override = overrideFromDraft(targets, draft, amountRefused);
    if (!override) {
      // The first field with something to fix, else the title (the form said why).
      const order: [keyof typeof problems, string][] = [
        ['summary', 'summary'],
        ['amount', 'amount'],
        ['note', 'note'],
        ['form', 'summary'],
      ];
      const at = order.find(([key]) => problems[key] !== undefined);
      if (at) document.getElementById(id(at[1]))?.focus();
      return;
    }
    onSave(override);
    close();
  };

  const start = event.DTSTART?.trim() ?? '';
  const when = readableIcsDate(start, event.TZID) ?? start;
  const described = (...parts: (string | false | undefined)[]) => parts.filter(Boolean).join(' ') || undefined;

  return (
    <dialog ref={dialog} className="dialog cal-change" aria-labelledby={id('title')} aria-describedby={id('event')}>
      <form className="dialog__panel" onSubmit={submit} noValidate>
        <div className="dialog__header">
          <h2 id={id('title')}>Change this event</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={close}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>

        <p id={id('event')} className="cal-change__event">
          <strong>{targets.title || '(no title)'}</strong>
          {when && <span className="hint">{when}</span>}
        </p>

        <fieldset className="cal-change__choice">
          <legend>What to do</legend>
          <CheckRow type="radio" name={id('choice')} value="change" checked={changing} onChange={() => update({ choice: 'change' })}>
            {CHANGE_LABEL(targets)}
          </CheckRow>
          <CheckRow type="radio" name={id('choice')} value="hideOne" checked={draft.choice === 'hideOne'} onChange={() => update({ choice: 'hideOne' })}>
            {targets.recurring ? `Hide this occurrence${targets.occurrence ? ` (${targets.occurrence})` : ''}` : 'Hide this event'}
          </CheckRow>
          {targets.recurring && (
            <CheckRow
              type="radio"
              name={id('choice')}
              value="hideSeries"
              checked={draft.choice === 'hideSeries'}
              onChange={() => update({ choice: 'hideSeries' })}
            >
              Hide the whole series
            </CheckRow>
          )}
        </fieldset>

        {/* Disabled rather than gone while hiding: the dialog keeps its size, and what was typed stays. */}
        <fieldset className="cal-change__fields" disabled={!changing}>
          <legend className="visually-hidden">The change</legend>
          {targets.recurring && (
            <p className="hint">
              {targets.change.recurrenceId
                ? 'A new title, time or note changes this occurrence only.'
                : 'A new title, time or note changes every occurrence; occurrences the feed lists on their own can be changed one by one.'}
            </p>
          )}
          <div className="field">
            <label htmlFor={id('summary')}>New title</label>
            <input
              id={id('summary')}
              ref={titleInput}
              className="input"
              value={draft.summary}
              onChange={(e) => update({ summary: e.target.value })}
              autoComplete="off"
              aria-invalid={(changing && problems.summary !== undefined) || undefined}
              aria-describedby={described(id('summary-hint'), changing && problems.summary !== undefined && id('summary-error'))}
            />
            <span id={id('summary-hint')} className="hint">
              {prefix.trim() === ''
                ? 'Replaces the title your mapping makes. Leave empty to keep it.'
                : `Replaces the title your mapping makes, the feed’s prefix “${prefix.trim()}” included: type it too to keep it. Leave empty to keep the title.`}
            </span>
            {changing && problems.summary && (
              <span id={id('summary-error')} className="error-text">
                {problems.summary}
              </span>
            )}
          </div>

          <NumberField
            // A new unit starts the box over from the last accepted number; the box itself refuses it when out of that unit's range.
            key={draft.unit}
            id={id('amount')}
            label="Move it by"
            className="cal-change__shift"
            min={0}
            max={maxAmount(draft.unit)}
            refusal={amountText(draft.unit)}
            value={draft.amount}
            hint={targets.allDay ? 'An all-day event moves by whole days. Leave empty to keep its time.' : 'Leave empty to keep its time.'}
            onChange={(entry) => {
              setAmountRefused(!entry.ok);
              if (entry.ok) update({ amount: entry.value });
            }}
          >
            <select
              className="select cal-change__unit"
              aria-label="Unit"
              value={draft.unit}
              onChange={(e) => {
                setAmountRefused(false);
                update({ unit: e.target.value as ShiftUnit });
              }}
            >
              {units.map((unit) => (
                <option key={unit} value={unit}>
                  {unit}
                </option>
              ))}
            </select>
            <select
              className="select cal-change__direction"
              aria-label="Earlier or later"
              value={draft.direction}
              onChange={(e) => update({ direction: e.target.value as ShiftDirection })}
            >
              <option value="later">later</option>
              <option value="earlier">earlier</option>
            </select>
          </NumberField>

          <div className="field">
            <label htmlFor={id('note')}>Note</label>
            <textarea
              id={id('note')}
              className="textarea cal-change__note"
              rows={3}
              value={draft.note}
              onChange={(e) => update({ note: e.target.value })}
              aria-invalid={(changing && problems.note !== undefined) || undefined}
              aria-describedby={described(id('note-hint'), changing && problems.note !== undefined && id('note-error'))}
            />
            <span id={id('note-hint')} className="hint">
              Added below the event’s description.
            </span>
            {changing && problems.note && (
              <span id={id('note-error')} className="error-text">
                {problems.note}
              </span>
            )}
          </div>
        </fieldset>

        {replaces && <p className="hint">This event already has a change of yours: saving replaces it.</p>}
        {!room && (
          <p className="error-text" role="alert">
            {FULL_TEXT}
          </p>
        )}
        {tried && problems.form && (
          <p className="error-text" role="alert">
            {problems.form}
          </p>
        )}

        <div className="cal-change__actions">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button--primary">
            Save change
          </button>
        </div>
      </form>
    </dialog>
  );
}
