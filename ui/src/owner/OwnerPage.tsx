// /owner (issue 23): how the site is doing, for its owner: the self-check, the published calendars
// and their health, sync's and the calendar feeds' use of their quotas, and the backups. Behind the
// publish key; on a site without one the page does not exist (the app's "page not found"), and
// nothing links to it. Only "Loading…" shows until the first answer, which then fills the page at
// once: nothing was there yet that it could move.
import { KeyRound, RefreshCw } from 'lucide-react';
import { Loading } from '../layout/Loading';
import { NotFoundPage } from '../layout/NotFoundPage';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { clockTime } from '../lib/when';
import { OwnerSections } from './OwnerSections';
import { NO_KEY_TEXT, type OwnerState } from './state';
import { useOwner } from './useOwner';

export function OwnerPage() {
  const { state, check } = useOwner();
  if (state.kind === 'loading') return <Loading />;
  if (state.kind === 'notFound') return <NotFoundPage />;
  return <OwnerView state={state} onCheck={check} />;
}

/** What the polite line under the title says: each check's outcome, so one that finds nothing new is still heard. */
function checkedLine(state: OwnerState): string {
  if (state.kind !== 'ready') return '';
  if (state.checking) return 'Checking again…';
  return state.problem ?? `Checked at ${clockTime(state.checkedAt, {}, true)}.`;
}

function OwnerView({ state, onCheck }: { state: Exclude<OwnerState, { kind: 'loading' | 'notFound' }>; onCheck: () => void }) {
  useDocumentTitle('Owner');
  const ready = state.kind === 'ready' ? state : null;
  const busy = ready?.checking ?? false;
  const version = ready?.owner.version;
  return (
    <section className="page owner" aria-labelledby="owner-title">
      <div className="toolbar">
        <div className="toolbar__title">
          <h1 id="owner-title">Owner</h1>
        </div>
        {state.kind !== 'noKey' && (
          <button type="button" className="button" onClick={onCheck} aria-disabled={busy || undefined}>
            <RefreshCw aria-hidden="true" size={16} className={busy ? 'owner-spin' : undefined} />
            Check again
          </button>
        )}
      </div>
      <div className="owner__intro">
        <p>How this site is doing, as its server sees it. Only someone with the publish key can open this page.</p>
        {version && <p className="hint">Hearth {version}</p>}
        <p className="hint owner__checked" aria-live="polite">
          {checkedLine(state)}
        </p>
      </div>
      {state.kind === 'noKey' && (
        <div className="card owner-section owner-key">
          <p>{NO_KEY_TEXT}</p>
          <button type="button" className="button button--primary" onClick={onCheck}>
            <KeyRound aria-hidden="true" size={16} />
            Enter the publish key
          </button>
        </div>
      )}
      {state.kind === 'failed' && (
        <p className="alert" role="alert">
          {state.message}
        </p>
      )}
      {ready && <OwnerSections owner={ready.owner} now={ready.checkedAt} busy={busy} />}
    </section>
  );
}
