// The words "turn on Sync or" with a link to the sync page, where the server has sync: the
// flashcards' storage notice offers it through a slot (lib/slots.tsx), and says nothing of sync
// on a server that turned it off.
import { Link } from 'react-router';
import { useSyncInfo } from './useSync';

export function SyncOffer() {
  const sync = useSyncInfo();
  if (!sync) return null;
  return (
    <>
      turn on <Link to="/sync">Sync</Link> or{' '}
    </>
  );
}
