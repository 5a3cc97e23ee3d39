// The deck list's quiet notice when the browser has not agreed to keep the site's storage
// (keepStorage.ts): what can happen to the decks and the ways to keep a copy: Sync (offered, or
// said to be on in a browser that syncs) and Export.
// It asks the browser once the learner has a deck, and sits below the decks, so nothing on the page
// moves when the answer comes.
import './StorageNotice.css';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { HardDrive } from 'lucide-react';
import { useSyncStanding } from '../lib/slots';
import { browserStorageManager, createKeeper, showKeepNotice, type KeepState } from './keepStorage';

const keeper = createKeeper(browserStorageManager);

export function StorageNotice({ deckCount, onExport }: { deckCount: number; onExport: () => void }) {
  const [state, setState] = useState<KeepState | null>(null);
  const sync = useSyncStanding();
  const hasDecks = deckCount > 0;
  useEffect(() => {
    if (!hasDecks) return;
    let live = true;
    void keeper.ask().then((answer) => {
      if (live) setState(answer);
    });
    return () => {
      live = false;
    };
  }, [hasDecks]);
  if (!showKeepNotice(deckCount, state)) return null;
  const exportButton = (
    <button type="button" className="storage-notice__export" onClick={onExport}>
      export a backup
    </button>
  );
  return (
    <aside className="storage-notice" aria-label="Where your decks are kept">
      <HardDrive aria-hidden="true" size={18} className="storage-notice__icon" />
      {sync === 'on' ? (
        <p>
          Your decks are kept in this browser and synced with your other devices. This browser has not agreed to keep them: it may clear them when space runs
          short, and some browsers do after a week without a visit. Your other devices keep theirs, and opening the sync link here again brings them back. To
          keep a copy of your own, {exportButton}.
        </p>
      ) : (
        <p>
          Your decks are kept only in this browser, and it has not agreed to keep them: it may clear them when space runs short, and some browsers do after a
          week without a visit. To keep a copy,{' '}
          {sync === 'offered' && (
            <>
              turn on <Link to="/sync">Sync</Link> or{' '}
            </>
          )}
          {sync === 'stopped' && (
            <>
              start <Link to="/sync">Sync</Link> again or{' '}
            </>
          )}
          {exportButton}.
        </p>
      )}
    </aside>
  );
}
