// "Agenda page" in the options panel (agenda.ts): off by default; on, the published calendar
// also serves a page of its coming events (and their JSON) that visitors read and sites embed.
import { CheckRow } from './CheckRow';
import { AGENDA_OFF_TEXT, AGENDA_ON_TEXT } from './agenda';

interface Props {
  agenda: boolean;
  onChange: (agenda: boolean) => void;
}

export function AgendaField({ agenda, onChange }: Props) {
  return (
    <fieldset className="cal-options__group cal-agenda">
      <legend>Agenda page</legend>
      <CheckRow role="switch" checked={agenda} onChange={(e) => onChange(e.target.checked)} aria-describedby="cal-agenda-hint">
        Agenda page
      </CheckRow>
      <p id="cal-agenda-hint" className="hint">
        {agenda ? AGENDA_ON_TEXT : AGENDA_OFF_TEXT}
      </p>
    </fieldset>
  );
}
