// "Add a CalDAV calendar" beside "Add another feed": the account's address, a username and a
// password, "Find my calendars", then the account's calendars to choose from; the chosen one is
// added as a source of its own (`kind: "caldav"`, with the login). Thin: the rules are caldav.ts's.
import { useEffect, useId, useRef, useState, type SyntheticEvent } from 'react';
import { CalendarPlus, Search } from 'lucide-react';
import { siteKey } from '../lib/siteKey';
import { ApiError, findCaldavCalendars } from './api';
import {
  EMPTY_FORM,
  findRequest,
  formProblems,
  foundText,
  inputOfField,
  sentence,
  sourceOf,
  type CaldavForm,
  type CaldavInput,
  type FoundCalendar,
} from './caldav';
import type { GivenLogin } from './sourceLogin';

interface Props {
  /** The calendar has as many sources as it may. */
  full: boolean;
  onAdd: (source: { url: string; label: string; auth: GivenLogin }) => void;
}

type Finding = { state: 'idle' } | { state: 'finding' } | { state: 'found'; calendars: FoundCalendar[] } | { state: 'failed'; message: string };

const LABELS: Record<CaldavInput, string> = { address: 'Account address', username: 'Username', password: 'Password' };

export function CaldavPicker({ full, onAdd }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<CaldavForm>(EMPTY_FORM);
  const [errors, setErrors] = useState<Partial<Record<CaldavInput, string>>>({});
  const [search, setSearch] = useState<Finding>({ state: 'idle' });
  const asked = useRef(0);
  const inputId = (input: CaldavInput) => `${id}-${input}`;
  const toggle = useRef<HTMLButtonElement>(null);
  // Opened: the first input takes the focus (the keyboard goes on where the eye does).
  useEffect(() => {
    if (open) document.getElementById(`${id}-address`)?.focus();
  }, [open, id]);

  const close = () => {
    asked.current += 1;
    setOpen(false);
    setForm(EMPTY_FORM);
    setErrors({});
    setSearch({ state: 'idle' });
  };

  const find = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (search.state === 'finding') return;
    const problems = formProblems(form);
    setErrors(problems);
    const first = (['address', 'username', 'password'] as const).find((input) => problems[input]);
    if (first) {
      document.getElementById(inputId(first))?.focus();
      return;
    }
    const ask = ++asked.current;
    setSearch({ state: 'finding' });
    try {
      const calendars = await findCaldavCalendars(findRequest(form), siteKey.read());
      if (ask === asked.current) setSearch({ state: 'found', calendars });
    } catch (error) {
      if (ask !== asked.current) return;
      const message = error instanceof Error ? error.message : String(error);
      const input = error instanceof ApiError ? inputOfField(error.field) : null;
      if (input) {
        setErrors({ [input]: sentence(message) });
        setSearch({ state: 'idle' });
        document.getElementById(inputId(input))?.focus();
      } else {
        setSearch({ state: 'failed', message: sentence(`The calendars could not be listed: ${message}`) });
      }
    }
  };

  const set = (input: CaldavInput, value: string) => {
    setForm((f) => ({ ...f, [input]: value }));
    setErrors((e) => (e[input] ? { ...e, [input]: undefined } : e));
  };

  const field = (input: CaldavInput, extra: { type: string; autoComplete: string; placeholder?: string; hint?: string }) => {
    const error = errors[input];
    const describedBy = [error ? `${inputId(input)}-error` : null, extra.hint ? `${inputId(input)}-hint` : null].filter(Boolean).join(' ') || undefined;
    return (
      <div className={`field cal-caldav__${input}`}>
        <label htmlFor={inputId(input)}>{LABELS[input]}</label>
        <input
          id={inputId(input)}
          className={input === 'address' ? 'input cal-mono' : 'input'}
          type={extra.type}
          value={form[input]}
          autoComplete={extra.autoComplete}
          spellCheck={false}
          placeholder={extra.placeholder}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => set(input, e.target.value)}
        />
        {extra.hint && (
          <p id={`${inputId(input)}-hint`} className="hint">
            {extra.hint}
          </p>
        )}
        {error && (
          <p id={`${inputId(input)}-error`} className="error-text cal-field-error">
            {error}
          </p>
        )}
      </div>
    );
  };

  const status =
    search.state === 'finding'
      ? 'Looking for the account’s calendars…'
      : search.state === 'found'
        ? foundText(search.calendars)
        : search.state === 'failed'
          ? search.message
          : '';

  return (
    <div className="cal-caldav">
      <button
        ref={toggle}
        type="button"
        className="button cal-caldav__toggle"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        aria-disabled={full || undefined}
        aria-describedby={full ? 'cal-sources-full' : undefined}
        onClick={() => (open ? close() : !full && setOpen(true))}
      >
        <CalendarPlus aria-hidden="true" size={16} />
        Add a CalDAV calendar
      </button>
      {open && (
        <form id={`${id}-panel`} className="cal-caldav__panel" onSubmit={(e) => void find(e)} noValidate aria-labelledby={`${id}-title`}>
          <p id={`${id}-title`} className="cal-caldav__title">
            CalDAV calendar
          </p>
          <p className="hint">
            A calendar of your iCloud, Fastmail, Nextcloud, Synology or Radicale account, read with its login. Hearth keeps the login for this calendar only.
          </p>
          {field('address', {
            type: 'url',
            autoComplete: 'off',
            placeholder: 'https://caldav.icloud.com',
            hint: 'iCloud: https://caldav.icloud.com with an app-specific password; Fastmail: https://caldav.fastmail.com; Nextcloud: https://your.cloud/remote.php/dav.',
          })}
          <div className="cal-caldav__pair">
            {field('username', { type: 'text', autoComplete: 'off' })}
            {field('password', { type: 'password', autoComplete: 'new-password' })}
          </div>
          <div className="cal-caldav__actions">
            <button type="submit" className="button button--primary" aria-disabled={search.state === 'finding' || undefined}>
              <Search aria-hidden="true" size={16} />
              Find my calendars
            </button>
            <button
              type="button"
              className="button"
              onClick={() => {
                close();
                toggle.current?.focus();
              }}
            >
              Cancel
            </button>
          </div>
          <p className={search.state === 'failed' ? 'error-text cal-caldav__status' : 'hint cal-caldav__status'} role="status">
            {status}
          </p>
          {search.state === 'found' && search.calendars.length > 0 && (
            <ul className="cal-caldav__list" aria-label="The account’s calendars">
              {search.calendars.map((calendar) => (
                <li key={calendar.url} className="cal-caldav__item">
                  <span className="cal-caldav__swatch" aria-hidden="true" style={calendar.color ? { background: calendar.color } : undefined} />
                  <span className="cal-caldav__name">
                    {calendar.name}
                    <span className="cal-caldav__url cal-mono">{calendar.url}</span>
                  </span>
                  <button
                    type="button"
                    className="button"
                    aria-label={`Add ${calendar.name}`}
                    onClick={() => {
                      onAdd(sourceOf(calendar, form));
                      close();
                    }}
                  >
                    Add
                  </button>
                </li>
              ))}
            </ul>
          )}
        </form>
      )}
    </div>
  );
}
