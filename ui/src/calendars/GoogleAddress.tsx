// Google's slow refresh, said and eased: Google Calendar fetches a subscription every 8 to 24
// hours whatever the feed asks; "A new address for Google" makes a second hosted address of the
// same calendar (the old one still served), which Google fetches at once (agenda.ts, api.ts).
import { useState } from 'react';
import { RefreshCw } from 'lucide-react';
import { withSiteKey } from '../lib/siteKey';
import { makeGoogleAddress } from './api';
import { GOOGLE_REFRESH_TEXT, GOOGLE_STEPS_TEXT } from './agenda';
import { CopyField } from './CopyField';
import { failureText } from './failure';
import { browserKeyDeps } from './publishKeyPrompt';

interface Props {
  id: string;
  /** Needed to make one; without it the editor only says why Google is slow. */
  editToken: string | undefined;
}

export function GoogleAddress({ id, editToken }: Props) {
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
  return (
    <section className="card cal-extra" aria-labelledby="cal-google-title">
      <h2 id="cal-google-title">Google Calendar</h2>
      <p className="hint">{GOOGLE_REFRESH_TEXT}</p>
      {editToken && (
        <div>
          <button type="button" className="button" onClick={() => void make()} disabled={busy} aria-describedby={problem ? 'cal-google-problem' : undefined}>
            <RefreshCw aria-hidden="true" size={16} />
            <span>A new address for Google</span>
          </button>
        </div>
      )}
      {problem && (
        <p id="cal-google-problem" className="error-text" role="alert">
          {problem}
        </p>
      )}
      {made && (
        <>
          <CopyField id="cal-google-address" label="The new address to give Google" value={made} />
          <p className="hint">{GOOGLE_STEPS_TEXT}</p>
        </>
      )}
    </section>
  );
}
