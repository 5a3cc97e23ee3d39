// The vault's media in a sync (engine.ts): before a push, the files this browser's cards refer to
// that the vault is not known to hold are sent (so a device reading the new version finds them);
// after a pull that brought a new version (and at the first sync of a page), the files the cards
// refer to that this device lacks are fetched in the background; after a merge, files no card
// refers to any more are removed from the server. The cards' media ask the same fetcher for a file
// they show a placeholder for: from the vault, else from the share links decks were added from.
// A refusal of a file (the vault's media quota, the storage: 507, 413) does not stop the decks
// syncing: it is said, and sending waits PAUSE_MS before it is tried again.
import type { DecksSnapshot, SyncAdapters } from '../lib/syncAdapters';
import { SyncApiError } from './api';
import { fetchAllMissing, fetchMedia, forgetFailures, sendMedia, type MediaBlob } from './media';
import { syncStore, type VaultRecord } from './state';

/** How long sending files waits after the server refused one for room. */
export const PAUSE_MS = 5 * 60_000;

let pausedUntil = 0;
let fetchedOnce = false;
let fetchingAll: Promise<void> | null = null;
let registered: SyncAdapters | null = null;

const vaultBlob = (vault: VaultRecord): MediaBlob => ({ kind: 'vaults', id: vault.id, key: vault.key, token: vault.token });

/** The files the decks' cards refer to. */
export function referencedBy(decks: DecksSnapshot['decks'], adapters: SyncAdapters): string[] {
  return Object.values(decks).flatMap((deck) => adapters.media.referenced(deck));
}

/** Whether the server refused a file for room or size (not a reason to stop syncing decks). */
const refusedForRoom = (error: unknown) => error instanceof SyncApiError && (error.status === 507 || error.status === 413);

/**
 * Sends the files `decks` refer to that the vault is not known to hold (and with `prune`, removes
 * those no card refers to). Answers the server's refusal of a file for room, for the sync to say
 * once the decks are synced; throws what should stop the sync (429, no connection).
 */
export async function sendVaultMedia(vault: VaultRecord, decks: DecksSnapshot['decks'], adapters: SyncAdapters, prune = false): Promise<Error | null> {
  if (Date.now() < pausedUntil) return null;
  try {
    await sendMedia(vaultBlob(vault), referencedBy(decks, adapters), adapters.media, syncStore, prune);
    return null;
  } catch (error) {
    if (!refusedForRoom(error)) throw error;
    pausedUntil = Date.now() + PAUSE_MS;
    return error as Error;
  }
}

/**
 * After a pull that brought a new version (or at the first sync of this page): fetches the files
 * the decks refer to that this device lacks, in the background, one run at a time.
 */
export function fetchVaultMedia(vault: VaultRecord, adapters: SyncAdapters, pulledNew: boolean): void {
  if (!pulledNew && fetchedOnce) return;
  fetchedOnce = true;
  // A new version may bring a file that was missing before: asked for again at once.
  if (pulledNew) forgetFailures();
  if (fetchingAll) return;
  fetchingAll = fetchAllMissing(vaultBlob(vault), referencedBy(adapters.decks.read().decks, adapters), adapters.media, syncStore)
    .then(() => undefined)
    .catch(() => undefined)
    .finally(() => {
      fetchingAll = null;
    });
}

/**
 * The file with SHA-256 `hash`, for a card showing a placeholder: from this browser's vault, else
 * from the share links its decks were added from. True once it is in the media store.
 */
export async function fetchForCard(hash: string, adapters: SyncAdapters): Promise<boolean> {
  const vault = syncStore.vault();
  if (vault && !vault.gone && (await fetchMedia(vaultBlob(vault), hash, adapters.media, syncStore))) return true;
  for (const copy of Object.values(syncStore.copies())) {
    if (await fetchMedia({ kind: 'shares', id: copy.shareId, key: copy.key }, hash, adapters.media)) return true;
  }
  return false;
}

/** Registers the fetcher the cards' media ask (once per set of adapters). */
export function provideMediaFetcher(adapters: SyncAdapters): void {
  if (registered === adapters) return;
  registered = adapters;
  adapters.media.setFetcher((hash) => fetchForCard(hash, adapters));
}

/** Waits for the background fetch under way (tests). */
export const mediaFetched = (): Promise<void> => fetchingAll ?? Promise.resolve();

/** A fresh start (tests, forgetting the vault). */
export function resetMediaSync(): void {
  pausedUntil = 0;
  fetchedOnce = false;
}
