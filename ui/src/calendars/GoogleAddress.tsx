// Google's slow refresh, said and eased: Google Calendar fetches a subscription every 8 to 24
// hours whatever the feed asks; "A new address for Google" makes a second hosted address of the
// same calendar (the old one still served), which Google fetches at once (agenda.ts, api.ts).
// The newest address made comes back with the calendar's status (the health check's answer), so
// it is shown again after a reload; its room is kept from the first frame, so nothing moves when
// the answer comes.
import { useState } from 'react';
import { RefreshCw } from 'lucide-react';
import { withSiteKey } from '../lib/siteKey';
import { makeGoogleAddress } from './api';
import { GOOGLE_REFRESH_TEXT, GOOGLE_STEPS_TEXT, googleAddressShown } from './agenda';
import { CopyField } from './CopyField';
import { failureText } from './failure';
import { browserKeyDeps } from './publishKeyPrompt';
import type { HealthView } from './useCalendarHealth';

interface Props {
  id: string;
  /** Needed to make one and to be shown one; without it the editor only says why Google is slow. */
  editToken: string | undefined;
  /** The editor's health check, whose answer lists the addresses made for Google. */
  health: HealthView | null;
}

export function GoogleAddress({ id, editToken, health }: Props) {
  const [made, setMade] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const make = async () => {
    if (!editToken) return;
    setBusy(true);
    setProblem(null);
    const outcome = await withSiteKey((key) => makeGoogleAddress(id, editToken, key), browserKeyDeps);
    setBusy(false);
    if (outcome.kind === 'done') setMade(outcome.value.url);
    else if (outcome.kind === 'failed') setProblem(failureText(outcome.message, outcome.error));
  };
  const shown = googleAddressShown(made, health);
  return (
    <section className="card cal-extra" aria-labelledby="cal-google-title">
      <h2 id="cal-google-title">Google Calendar</h2>
      <p className="hint">{GOOGLE_REFRESH_TEXT}</p>
      {editToken && (
        <>
          <div>
            <button type="button" className="button" onClick={() => void make()} disabled={busy} aria-describedby={problem ? 'cal-google-problem' : undefined}>
              <RefreshCw aria-hidden="true" size={16} />
              <span>A new address for Google</span>
            </button>
          </div>
          {problem && (
            <p id="cal-google-problem" className="error-text" role="alert">
              {problem}
            </p>
          )}
          {/* One cell: the address's room is there (unseen) while a note takes its place. */}
          <div className="cal-google__room">
            <div
              className={shown.kind === 'address' ? 'cal-google__address' : 'cal-google__address cal-google__address--unseen'}
              inert={shown.kind !== 'address'}
            >
              <CopyField
                id="cal-google-address"
                label={shown.kind === 'address' ? shown.label : 'The address for Google'}
                value={shown.kind === 'address' ? shown.url : ''}
              />
              <p className="hint">{GOOGLE_STEPS_TEXT}</p>
            </div>
            {shown.kind === 'note' && <p className="hint cal-google__note">{shown.text}</p>}
          </div>
        </>
      )}
    </section>
  );
}
