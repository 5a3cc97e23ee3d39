// The deck list's sync control: a link to the sync page saying when this browser last synced, or
// that syncing stopped because the server no longer has the vault (the page offers to start again).
import { RefreshCw } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { readVault } from './engine';
import { useSyncInfo, useSyncStatus } from './useSync';
import { badgeText, vaultGoneText } from './words';

export function SyncBadge() {
  const info = useSyncInfo();
  const status = useSyncStatus();
  if (!info) return null;
  const vault = readVault();
  const title = status.phase === 'gone' ? vaultGoneText(info.vaultExpiryDays) : (status.error ?? 'Sync your decks with your other devices');
  return (
    <ButtonLink look="quiet" className="sync-badge" to="/sync" title={title} data-sync-phase={vault ? status.phase : 'off'}>
      <RefreshCw aria-hidden="true" size={18} />
      {badgeText(vault !== null, status)}
    </ButtonLink>
  );
}
