// Handing a vault to another device without its key entering that browser's history. A browser
// records every address it opens, fragment included, before any script of the page runs
// (Chromium keeps it in its History database), so opening a vault's own link (#v=…&k=…&t=…)
// leaves the key there for good. The sync page instead gives a one-time link (#h=…&k=…): it names
// a note on the server (a blob like a shared deck's, sealed with the link's own key for its place)
// that holds the vault's link and the note's write token. The device that opens it reads the note,
// removes it, and joins; what its history keeps then opens nothing. The browser that made a link
// keeps it (state.ts) to remove it when it makes the next, replaces its link or stops syncing.
import { isRecord } from '../lib/json';
import { createBlob, readBlob, removeBlob } from './api';
import { NOTHING_SEEN, openPlaced } from './binding';
import { newBlobId, newKey, newToken, seal } from './crypto';
import { parseVaultHash, type HandoverLink, type VaultLink } from './links';
import { syncStore } from './state';

export const HANDOVER_TYPE = 'hearth-vault-handover';

const placeOf = (id: string) => ({ kind: 'shares', id, version: 1 }) as const;

/** Removes the last link this browser made, if any (best effort: an unread note also expires). */
export async function dropHandover(): Promise<void> {
  const made = syncStore.handover();
  if (!made) return;
  try {
    if (made.id) await removeBlob('shares', made.id, made.token);
    syncStore.setHandover(null);
  } catch {
    // No answer: removed with the next link made here.
  }
}

/**
 * A one-time link to `vault` for another device, replacing the last one made here. Its key and
 * write token are kept before the request goes (a lost answer is finished by calling this again).
 * Null when the site wants its key and the visitor cancelled.
 */
export async function makeHandover(vault: VaultLink): Promise<HandoverLink | null> {
  const kept = syncStore.handover();
  // A create of this vault's link whose answer was lost is finished; any other link is removed.
  const unfinished = kept && !kept.id && kept.vaultId === vault.id ? kept : null;
  if (!unfinished) await dropHandover();
  const pending = unfinished ?? { chosenId: newBlobId(), key: await newKey(), token: newToken(), vaultId: vault.id };
  syncStore.setHandover(pending);
  const body = await seal(
    { type: HANDOVER_TYPE, version: 1, vault: { v: vault.id, k: vault.key, t: vault.token }, token: pending.token },
    pending.key,
    placeOf(pending.chosenId),
  );
  const created = await createBlob('shares', body, pending.token, pending.chosenId);
  if (!created) return null;
  if (!created.replayed && created.id !== pending.chosenId)
    throw new Error('This server does not keep the link under the id this page chose: reload the page.');
  syncStore.setHandover({ ...pending, id: created.id });
  return { id: created.id, key: pending.key };
}

/** Why a one-time link opens nothing. */
export const HANDOVER_USED =
  'This link was used already (it works once), or it expired. On a device that syncs, open Sync and make a new link for this device.';

/**
 * The vault a one-time link hands over; the note is removed once read, so the link opens nothing
 * again. Null when the server no longer has the note (used, or expired). Throws in words when the
 * note is not one.
 */
export async function redeemHandover(link: HandoverLink): Promise<VaultLink | null> {
  const pulled = await readBlob('shares', link.id);
  if (pulled.kind !== 'blob') return null;
  const opened = await openPlaced(pulled.body, link.key, { ...placeOf(link.id), version: pulled.version }, NOTHING_SEEN);
  const value = opened.value;
  const vault = isRecord(value) && value.type === HANDOVER_TYPE && isRecord(value.vault) ? value.vault : null;
  const found =
    vault && typeof vault.v === 'string' && typeof vault.k === 'string' && typeof vault.t === 'string'
      ? parseVaultHash(`#v=${vault.v}&k=${vault.k}&t=${vault.t}`)
      : null;
  if (!found || !isRecord(value) || typeof value.token !== 'string') throw new Error('This link does not hold a sync this app can read.');
  try {
    await removeBlob('shares', link.id, value.token);
  } catch {
    // Not removed now (no answer): the device that made it removes it with its next link.
  }
  return found;
}
