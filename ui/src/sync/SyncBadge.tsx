// The deck list's sync control: a link to the sync page saying when this browser last synced.
import { Link } from 'react-router';
import { RefreshCw } from 'lucide-react';
import { readVault } from './engine';
import { syncedWhen, useSyncInfo, useSyncStatus } from './useSync';

export function SyncBadge() {
  const info = useSyncInfo();
  const status = useSyncStatus();
  if (!info) return null;
  const vault = readVault();
  const text = !vault
    ? 'Sync'
    : status.phase === 'syncing'
      ? 'Syncing…'
      : status.phase === 'offline'
        ? 'Offline: will sync'
        : status.phase === 'error'
          ? 'Sync failed'
          : `Synced ${syncedWhen(status.lastSyncedAt)}`;
  return (
    <Link className="button button--quiet sync-badge" to="/sync" title={status.error ?? 'Sync your decks with your other devices'} data-sync-phase={vault ? status.phase : 'off'}>
      <RefreshCw aria-hidden="true" size={18} />
      {text}
    </Link>
  );
}
