// The calendar list (SPEC.md 2): saved calendars with Edit and Delete, Add Calendar, and the empty
// state. Adding asks for the feed address and a name, then opens the editor on a new record. Each
// hosted calendar gets a line on its health, checked once as the list shows. Work the editor kept
// as a draft is marked: a saved calendar's unsaved changes, and calendars never saved, listed after
// the saved ones so they can be opened again or deleted.
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { CalendarPlus, Pencil, Plus, Trash2 } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { withSiteKey } from '../lib/siteKey';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { unpublishCalendar } from './api';
import { askNewCalendar } from './addCalendar';
import { CalendarHealthLine } from './CalendarHealth';
import { DEFAULT_NAME, draftCalendar, editorPath, type SavedCalendar } from './calendar';
import { failureText } from './failure';
import { maskFeedUrl } from './feedUrl';
import { browserKeyDeps } from './publishKeyPrompt';
import { calendarStore } from './storage';
import { useListHealth, type HealthResult } from './useCalendarHealth';

interface ItemProps {
  calendar: SavedCalendar;
  /** Undefined for a calendar that is not hosted (or that this browser cannot ask about). */
  health: HealthResult | 'checking' | undefined;
  /** Work the editor kept as a draft: changes to a saved calendar, or a calendar never saved. */
  unsaved?: 'changes' | 'new';
  onDelete: (c: SavedCalendar) => void;
}

function CalendarItem({ calendar, health, unsaved, onDelete }: ItemProps) {
  const name = calendar.name.trim() === '' ? DEFAULT_NAME : calendar.name;
  const titleId = `calendar-${calendar.id}-title`;
  return (
    <li className="card cal-item" aria-labelledby={titleId}>
      <div className="cal-item__text">
        <h2 className="cal-item__name" id={titleId}>
          {name}
          {calendar.hostedUrl && <span className="pill pill--accent">Hosted</span>}
          {unsaved && <span className="unsaved-marker">{unsaved === 'new' ? 'Not saved yet' : 'Unsaved changes'}</span>}
        </h2>
        {/* Private feeds carry an access token in the query: shown masked, never in full. */}
        <p className="cal-item__url">
          {maskFeedUrl(calendar.url)}
          {/* A merged calendar: its first feed, and how many more. */}
          {calendar.sources && calendar.sources.length > 1 && (
            <span className="cal-item__more">
              {' '}
              and {calendar.sources.length - 1} more {calendar.sources.length === 2 ? 'feed' : 'feeds'}
            </span>
          )}
        </p>
        {health && <CalendarHealthLine health={health} />}
      </div>
      <div className="cal-item__actions">
        <ButtonLink to={editorPath(calendar)} aria-label={`Edit ${name}`}>
          <Pencil aria-hidden="true" size={16} />
          Edit
        </ButtonLink>
        <button type="button" className="button button--danger" aria-label={`Delete ${name}`} onClick={() => onDelete(calendar)}>
          <Trash2 aria-hidden="true" size={16} />
          Delete
        </button>
      </div>
    </li>
  );
}

export function CalendarListPage() {
  useDocumentTitle('Calendars');
  const navigate = useNavigate();
  const [calendars, setCalendars] = useState(() => calendarStore.list());
  const [drafts, setDrafts] = useState(() => calendarStore.drafts());
  const draftIds = new Set(drafts.map((d) => d.id));
  // Calendars never saved: their drafts (one with no feed left has nothing to open).
  const unsavedNew = drafts.filter((d) => d.url.trim() !== '' && !calendars.some((c) => c.id === d.id)).map(draftCalendar);
  const [notice, setNotice] = useState('');
  const healthOf = useListHealth(calendars);
  const heading = useRef<HTMLHeadingElement>(null);

  const add = () => {
    const path = askNewCalendar();
    if (path) void navigate(path);
  };

  const remove = async (calendar: SavedCalendar) => {
    if (!window.confirm('Delete this calendar?')) return;
    const saved = calendars.some((c) => c.id === calendar.id);
    // A hosted copy would otherwise be orphaned: its edit token lives only in this record.
    if (calendar.editToken) {
      const token = calendar.editToken;
      const outcome = await withSiteKey((key) => unpublishCalendar(calendar.id, token, key), browserKeyDeps);
      if (outcome.kind === 'cancelled') return;
      // A refused token (403) manages nothing any more, so dropping it loses nothing; anything
      // else (server unreachable, ...) keeps the record so the token is not lost.
      if (outcome.kind === 'failed' && outcome.status !== 403) {
        window.alert(`Unpublish failed: ${failureText(outcome.message, outcome.error)}`);
        return;
      }
    }
    const result = saved ? calendarStore.remove(calendar.id) : { ok: true as const };
    if (!result.ok) {
      window.alert(result.error);
      return;
    }
    calendarStore.clearDraft(calendar.id);
    setCalendars(calendarStore.list());
    setDrafts(calendarStore.drafts());
    setNotice(`Deleted ${calendar.name.trim() === '' ? DEFAULT_NAME : calendar.name}.`);
    // The focused Delete button is gone; start again from the heading.
    heading.current?.focus();
  };

  return (
    <section className="page cal-list-page">
      <div className="toolbar">
        <div className="toolbar__title">
          <h1 ref={heading} tabIndex={-1}>
            Calendars
          </h1>
        </div>
        <button type="button" className="button button--primary" onClick={add}>
          <Plus aria-hidden="true" size={18} />
          Add Calendar
        </button>
      </div>
      <p role="status" className={notice ? 'hint' : 'visually-hidden'}>
        {notice}
      </p>
      {calendars.length === 0 && unsavedNew.length === 0 ? (
        <div className="card page empty-state">
          <p>No calendars saved yet.</p>
          <button type="button" className="button button--primary" onClick={add}>
            <CalendarPlus aria-hidden="true" size={18} />
            Add from URL
          </button>
        </div>
      ) : (
        <ul className="cal-list" aria-label="Saved calendars">
          {calendars.map((calendar) => (
            <CalendarItem
              key={calendar.id}
              calendar={calendar}
              health={healthOf(calendar.id)}
              unsaved={draftIds.has(calendar.id) ? 'changes' : undefined}
              onDelete={(c) => void remove(c)}
            />
          ))}
          {unsavedNew.map((calendar) => (
            <CalendarItem key={calendar.id} calendar={calendar} health={undefined} unsaved="new" onDelete={(c) => void remove(c)} />
          ))}
        </ul>
      )}
    </section>
  );
}
