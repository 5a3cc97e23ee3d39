// What the sync screens say about the server's side: how long it keeps what nobody opens, that
// a vault or shared deck is gone (and what to do then), when syncing tries again, and the deck
// list's one-line status.
// The day counts are the server's (GET /api/sync); without them the sentences leave them out.
import type { ShareUpdatePlan } from '../lib/syncAdapters';
import type { SyncStatus } from './engine';

const days = (n: number) => (n === 1 ? '1 day' : `${n} days`);

/** The sync page's note on what the server keeps; null when the server does not say. */
export function vaultExpiryText(vaultDays: number | undefined): string | null {
  return vaultDays === undefined ? null : `A vault nobody opens for ${days(vaultDays)} is removed from this server.`;
}

/** The share dialog's note; null when the server does not say. */
export function shareExpiryText(shareDays: number | undefined): string | null {
  return shareDays === undefined ? null : `A shared deck nobody opens for ${days(shareDays)} is removed from this server.`;
}

/** The sync page when the server no longer has this browser's vault (it answered 404). */
export function vaultGoneText(vaultDays: number | undefined): string {
  const removed = 'it was removed, or its link was replaced on another device';
  const why = vaultDays === undefined ? `${removed}, or it expired` : `${removed}, or nobody opened it for ${days(vaultDays)}`;
  return `The server no longer has this browser's sync vault: ${why}. Your decks are still here, in this browser.`;
}

/** The sync page's next steps once the vault is gone: the replaced link's new one first, a new vault only without one. */
export const VAULT_GONE_NEXT =
  'If another device replaced the sync link, open the new link on this device, or paste it here, to keep syncing with your other devices: the decks here are merged with it.';

/** Below it: what starting again does, and when it is the right step. */
export const VAULT_GONE_START_AGAIN =
  'If no device has a working link any more, start again: that makes a separate new vault from the decks in this browser, with a new link to open on your other devices.';

/** The placeholder the server shows when its owner set no name (--owner-name's default). */
const UNNAMED_OWNER = 'Your Name';

/** Who to ask for the sync key: the owner by name when the site has one. */
export function keyOwner(name: string): string {
  const owner = name.trim();
  return owner === '' || owner === UNNAMED_OWNER ? 'the person who runs this site' : `${owner}, who runs this site,`;
}

/** The key question's words (KeyDialog.tsx): which key, whom to ask, where it is kept. */
export const keyQuestionText = (ownerName: string) =>
  `Syncing and sharing decks on this site is for the learners its owner invites, with a key. Ask ${keyOwner(ownerName)} for the sync key and enter it here. This browser keeps it, so it asks only once.`;

/** Said above the key question when the key given or kept was not accepted. */
export const KEY_REFUSED = 'The server did not accept that key. Check it with whoever gave it to you, and enter it again.';

/** A shared deck's page when the server no longer has it. */
export function shareGoneText(shareDays: number | undefined): string {
  return shareDays === undefined
    ? 'This shared deck’s link was revoked or has expired.'
    : `This shared deck’s link was revoked, or it expired after ${days(shareDays)} without being opened.`;
}

/** "Trying again at 12:04:05." for a server that asked to be left alone. */
export function retryText(retryAt: number): string {
  const at = new Date(retryAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return `Trying again at ${at}.`;
}

/** "12:04" today, else the date and time. */
export function syncedWhen(iso: string | null, now = new Date()): string {
  if (!iso) return 'never';
  const date = new Date(iso);
  const today = now.toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : date.toLocaleString();
}

/** The deck list's sync link: what it says, by whether this browser syncs and how that goes. */
export function badgeText(syncing: boolean, status: SyncStatus): string {
  if (!syncing) return 'Sync';
  switch (status.phase) {
    case 'syncing':
      return 'Syncing…';
    case 'offline':
      return 'Offline: will sync';
    case 'gone':
      return 'Sync stopped';
    case 'error':
      return status.retryAt === null ? 'Sync failed' : 'Sync paused';
    case 'idle':
      return `Synced ${syncedWhen(status.lastSyncedAt)}`;
  }
}

/** "1 card", "3 cards". */
export const cards = (n: number) => (n === 1 ? '1 card' : `${n} cards`);

/** After a shared deck's update was taken: what it did, and that progress stayed. */
export function updateSummary(plan: Pick<ShareUpdatePlan, 'name' | 'added' | 'changed' | 'removed' | 'kept'>): string {
  const parts = [
    plan.added.length > 0 && `${cards(plan.added.length)} added`,
    plan.changed.length > 0 && `${cards(plan.changed.length)} changed`,
    plan.removed.length > 0 && `${cards(plan.removed.length)} removed`,
    plan.kept.length > 0 && `${cards(plan.kept.length)} kept as you edited them`,
  ].filter((part): part is string => part !== false);
  const what = parts.length > 0 ? `: ${parts.join(', ')}` : '';
  return `Updated “${plan.name.trim() || 'Untitled deck'}”${what}. Your progress is kept.`;
}
