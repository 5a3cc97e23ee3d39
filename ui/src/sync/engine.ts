// Syncing this browser with its vault: pull (a cheap 304 when nothing changed), merge, write back
// what changed here, push (compare-and-swap on the version; on a conflict pull again and merge),
// and remember what was synced as the base for telling local edits apart next time. In the
// background it runs when something is saved here, on focus, when the page becomes visible, when
// the connection returns, and every few seconds while the page is visible and online. A server
// that says to wait (429, 503 with Retry-After) is left alone that long; a vault the server no
// longer has (404: removed, or expired unread) stops the syncing until the learner starts again.
// Every body is sealed for its place (vault id and version, binding.ts) and a read older than one
// seen here, or sealed for another place, is refused before anything is merged or written. The
// vault travels in parts (vaultParts.ts): a push sends its manifest and the parts the server does
// not hold, a pull fetches the parts the base of the last merge does not already hold. The cards'
// pictures and sounds travel beside it (mediaSync.ts): sent once, fetched once per device.
// "Replace the sync link" moves this browser to a new vault (new key, token and id) holding
// everything, then removes the old one, retrying until the server has answered.
import { fingerprint } from '../lib/fingerprint';
import { announceSynced, onLocalChange } from '../lib/localChanges';
import { syncAdapters } from '../lib/syncAdapters';
import { createBlob, readBlob, readPart, removeBlob, SyncApiError, writeVaultParts, type SentPart, type WriteResult } from './api';
import { openPlaced } from './binding';
import { newBlobId, newKey, newToken, seal, type Place } from './crypto';
import type { VaultLink } from './links';
import { createClock, type Clock } from './hlc';
import { applyState, baseOf, emptyBase, localState, parseVault, readLocal, toVault, type Base } from './local';
import { canonical, merge, sameState, stateStamp, type VaultState } from './merge';
import { syncStore, VAULT_KEY, type PendingCreate, type VaultRecord } from './state';
import { fetchVaultMedia, provideMediaFetcher, resetMediaSync, sendVaultMedia } from './mediaSync';
import { assemble, baseContent, manifestOf, manifestParts, nameParts, partsOf, sealPart, type NamedPart, type PartValue } from './vaultParts';

export type { VaultRecord };

/** How often a visible page asks whether another device wrote (a 304 when not). */
export const POLL_MS = 3000;
/** A save is pushed this long after it (saves in a row go together)… */
export const PUSH_DELAY_MS = 250;
/**
 * …but never sooner than this after the last write, so a learner grading card after card pushes
 * once every 2 s at most: the server's write allowance per vault refills at that pace.
 */
export const PUSH_GAP_MS = 2000;

/** How long after a save, at `now`, to push it, when the last write went at `lastWriteAt` (epoch ms). */
export const pushDelay = (now: number, lastWriteAt: number): number => Math.max(PUSH_DELAY_MS, lastWriteAt + PUSH_GAP_MS - now);

/** When this page last sent a write of its vault (epoch ms; 0: none yet). */
let lastWriteAt = 0;
const MAX_ROUNDS = 4;

export const readVault = (): VaultRecord | null => syncStore.vault();

/** Whether a "Sync this browser" was sent and its answer never came (sending it again finishes it). */
export const hasPendingVault = (): boolean => syncStore.pendingVault() !== null;

let clock: Clock | null = null;
/** This browser's hybrid logical clock (kept by state.ts), made at its first use. */
const theClock = (): Clock => (clock ??= createClock(syncStore));

const writeBase = (state: VaultState) => syncStore.setBase(baseOf(state), fingerprint(canonical(state)));

/** Stops syncing this browser; its data stays, the vault stays for the other devices. */
export function forgetVault() {
  syncStore.forget();
  resetMediaSync();
  waitUntil = 0;
  status = { phase: 'idle', error: null, lastSyncedAt: null, retryAt: null };
  emit();
}

const vaultPlace = (id: string, version: number): Place => ({ kind: 'vaults', id, version });

/**
 * Makes the vault kept in `pending` holding `state` (bound to its chosen id, version 1): the new
 * vault record, or null when the site wants its key and the visitor cancelled. Sent again after a
 * lost answer the server answers with the vault the first try made; then this state is merged
 * with it from scratch (version 0, no base) at the next sync.
 */
async function createFrom(pending: Required<PendingCreate>, state: VaultState): Promise<VaultRecord | null> {
  const created = await createBlob('vaults', await seal(toVault(state), pending.key, vaultPlace(pending.id, 1)), pending.token, pending.id);
  if (!created) return null;
  if (!created.replayed && created.id !== pending.id) throw new Error('This server does not keep the vault under the id this page chose: reload the page.');
  const replayed = created.replayed;
  return {
    id: created.id,
    key: pending.key,
    token: created.token,
    version: replayed ? 0 : created.version,
    lastSyncedAt: new Date().toISOString(),
    gone: false,
    seenVersion: replayed ? 0 : created.version,
    boundSeen: !replayed,
    // Made whole (one body): the server holds no parts of it yet.
    ...(replayed ? {} : { parts: [] }),
  };
}

/** The create under way, or a new one (key, write token, id), kept before any request goes. */
async function keptPending(): Promise<Required<PendingCreate>> {
  const kept = syncStore.pendingVault();
  const pending = { key: kept?.key ?? (await newKey()), token: kept?.token ?? newToken(), id: kept?.id ?? newBlobId() };
  syncStore.setPendingVault(pending);
  return pending;
}

/** After a create: this browser syncs with `vault` now, the base is `state` (or none after a replayed create). */
function switchTo(vault: VaultRecord, state: VaultState) {
  syncStore.setVault(vault);
  if (vault.version === 0) syncStore.clearBase();
  else writeBase(state);
  syncStore.setPendingVault(null);
  waitUntil = 0;
  status = { phase: 'idle', error: null, lastSyncedAt: vault.lastSyncedAt, retryAt: null };
  emit();
  if (vault.version === 0) void syncNow();
}

/**
 * "Sync this browser" (and starting again after the vault was removed): a new vault holding
 * everything here. Its key, write token and id are kept before the request goes, so a create whose
 * answer was lost is finished by calling this again: the server answers with the same vault. Null
 * when the site wants its key and the visitor cancelled.
 */
export async function createVault(): Promise<VaultRecord | null> {
  const adapters = await syncAdapters();
  const pending = await keptPending();
  const snapshot = readLocal(adapters);
  const state = localState(snapshot, emptyBase(), theClock(), adapters.decks);
  const vault = await createFrom(pending, state);
  if (vault) switchTo(vault, state);
  // The cards' files follow at once, so another device joining now finds them (a refusal is said at the next sync).
  if (vault && vault.version !== 0) await sendVaultMedia(vault, snapshot.decks.decks, adapters).catch(() => null);
  return vault;
}

/** Removes the vaults a link replacement left behind; those the server did not answer for stay listed. */
async function removeRetired(): Promise<void> {
  for (const old of syncStore.retired()) {
    try {
      await removeBlob('vaults', old.id, old.token);
      syncStore.setRetired(syncStore.retired().filter((kept) => kept.id !== old.id));
    } catch (error) {
      // Refused for good (a token the server does not take): nothing more to do. Anything else
      // (no answer, 429, 5xx) is tried again at the next sync.
      const refused = error instanceof SyncApiError && error.status >= 400 && error.status < 500 && error.status !== 429;
      if (refused) syncStore.setRetired(syncStore.retired().filter((kept) => kept.id !== old.id));
    }
  }
}

/** Whether an old vault's removal is still waiting for the server. */
export const hasRetiredVault = (): boolean => syncStore.retired().length > 0;

/**
 * "Replace the sync link": syncs first, then makes a new vault (new key, write token and id)
 * holding everything here, moves this browser to it and removes the old vault with its token, so
 * the old link can neither read nor write. The old vault stays listed until the server answered
 * its removal (retried at every sync after a lost answer). A create whose answer was lost is
 * finished by calling this again. False when the site wants its key and the visitor cancelled.
 */
export async function replaceVault(): Promise<boolean> {
  const before = readVault();
  if (!before || before.gone) throw new Error('This browser does not sync with a vault the server has: there is no link to replace.');
  await syncNow();
  if (status.phase === 'offline') throw new Error('This browser is offline: the link can be replaced once it is online again.');
  if (status.phase !== 'idle') throw new Error(status.error ?? 'This browser could not sync, so the link was not replaced. Try again.');
  // No background sync of the old vault while this browser moves to the new one.
  replacing = true;
  let vault: VaultRecord | null;
  try {
    while (running) await running;
    const adapters = await syncAdapters();
    const pending = await keptPending();
    const state = localState(readLocal(adapters), syncStore.base(), theClock(), adapters.decks);
    vault = await createFrom(pending, state);
    if (!vault) return false;
    syncStore.setRetired([...syncStore.retired().filter((old) => old.id !== before.id), { id: before.id, token: before.token }]);
    switchTo(vault, state);
  } finally {
    replacing = false;
  }
  if (vault.version === 0) void syncNow();
  await removeRetired();
  if (hasRetiredVault()) await removeRetired();
  return true;
}

/** Opening a vault's link: everything here is merged with the vault at the first sync. */
export async function joinVault(link: VaultLink): Promise<void> {
  syncStore.forget();
  syncStore.setVault({ ...link, version: 0, lastSyncedAt: null, gone: false, seenVersion: 0, boundSeen: false });
  status = { phase: 'idle', error: null, lastSyncedAt: null, retryAt: null };
  await syncNow();
}

/**
 * Stores what a sync learnt of `vault`, unless this browser moved to another vault meanwhile (a
 * link replaced or joined in another tab): it is not this browser's vault any more then. Whether
 * it was stored.
 */
function keep(vault: VaultRecord): boolean {
  if (readVault()?.id !== vault.id) return false;
  syncStore.setVault(vault);
  return true;
}

function finish(vault: VaultRecord, version: number) {
  const lastSyncedAt = new Date().toISOString();
  const kept = keep({ ...vault, version, lastSyncedAt });
  status = { phase: 'idle', error: null, lastSyncedAt: kept ? lastSyncedAt : (readVault()?.lastSyncedAt ?? null), retryAt: null };
  emit();
}

/** The server has no such vault any more: say so, and stop asking until the learner starts again. */
function gone(vault: VaultRecord) {
  const kept = keep({ ...vault, gone: true });
  status = { ...status, phase: kept ? 'gone' : 'idle', error: null, retryAt: null };
  emit();
}

/** The parts of the last merge by name: their content is here, so they are not fetched again. */
async function knownParts(base: Base, keyText: string): Promise<Map<string, PartValue>> {
  const named = await nameParts(partsOf(baseContent(base)), keyText);
  return new Map(named.map((part) => [part.name, part.value]));
}

/**
 * The vault a pulled body stands for, as parseVault reads it, with the parts the server holds for
 * it ([] for a vault of one body); null when the server no longer has a part its manifest names.
 * The parts of `base` (the last merge) are taken from it, not fetched.
 */
async function wholeVault(vault: VaultRecord, opened: unknown, base: Base): Promise<{ value: unknown; parts: string[] } | null> {
  const names = manifestParts(opened);
  if (!names) return { value: opened, parts: [] };
  const whole = await assemble(opened as Record<string, unknown>, names, {
    vaultId: vault.id,
    keyText: vault.key,
    known: await knownParts(base, vault.key),
    fetchPart: (name) => readPart(vault.id, name),
  });
  return whole && { value: whole, parts: names };
}

const sealParts = (parts: readonly NamedPart[], vault: VaultRecord): Promise<SentPart[]> =>
  Promise.all(parts.map(async (part) => ({ name: part.name, body: await sealPart(part, vault.key, vault.id) })));

/**
 * Writes `state` as version `version + 1`: its manifest, and the parts the server does not hold
 * (`held`: the parts of `version`, or undefined when not known). Should the server lack one this
 * browser thought it held (it refuses with a 400), every part is sent once more.
 */
async function push(
  vault: VaultRecord,
  version: number,
  state: VaultState,
  held: readonly string[] | undefined,
): Promise<{ written: WriteResult; parts: string[] }> {
  const parts = await nameParts(partsOf(state), vault.key);
  const names = parts.map((part) => part.name);
  const manifest = await seal(manifestOf(state, names), vault.key, vaultPlace(vault.id, version + 1));
  const send = async (have: ReadonlySet<string>) => {
    const sent = await sealParts(
      parts.filter((part) => !have.has(part.name)),
      vault,
    );
    lastWriteAt = Date.now();
    return writeVaultParts(vault.id, vault.token, version, manifest, names, sent);
  };
  const have = new Set(held ?? []);
  try {
    return { written: await send(have), parts: names };
  } catch (error) {
    if (!(error instanceof SyncApiError && error.status === 400 && have.size > 0)) throw error;
    return { written: await send(new Set()), parts: names };
  }
}

/** One sync: pull, merge, apply, push; repeated when another device wrote in between. */
async function syncOnce(): Promise<void> {
  const adapters = await syncAdapters();
  provideMediaFetcher(adapters);
  // The server refused a file for room: said once the decks are synced.
  let mediaRefused: Error | null = null;
  const done = () => {
    if (mediaRefused) throw mediaRefused;
  };
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    let vault = readVault();
    if (!vault || vault.gone) return;
    const snapshot = readLocal(adapters);
    // The files this browser's cards refer to go first, so a device reading the new version finds them.
    mediaRefused = (await sendVaultMedia(vault, snapshot.decks.decks, adapters)) ?? mediaRefused;
    const base = syncStore.base();
    const local = localState(snapshot, base, theClock(), adapters.decks);
    // Until a bound body was seen here, read the vault whole (no 304) so one sealed before binding
    // is opened and written back bound at this first sync.
    const pulled = await readBlob('vaults', vault.id, vault.boundSeen ? vault.version || undefined : undefined);
    if (pulled.kind === 'gone') return gone(vault);
    let remote: VaultState | null = null;
    let version = vault.version;
    // A vault sealed before binding: written back bound even when nothing changed.
    let unbound = false;
    // The parts the server holds for `version`.
    let held = vault.parts;
    if (pulled.kind === 'blob') {
      // Refused (older than seen here, or sealed for another place): nothing is merged or written.
      const opened = await openPlaced(pulled.body, vault.key, vaultPlace(vault.id, pulled.version), vault);
      const whole = await wholeVault(vault, opened.value, base);
      // A part named by the manifest is gone: another device wrote since; read again.
      if (!whole) continue;
      remote = parseVault(whole.value, adapters);
      if (!remote) throw new Error('The vault holds data this version of the app does not read.');
      // An edit made here after this read is later than everything in it.
      theClock().receive(stateStamp(remote));
      version = pulled.version;
      unbound = opened.unbound;
      held = whole.parts;
      vault = { ...vault, ...opened.seen };
      if (!keep(vault)) continue;
    }
    // Unchanged since the last merge: this browser's state already contains the vault's.
    const merged = remote ? merge(remote, local) : local;
    if (!remote && fingerprint(canonical(local)) === syncStore.syncedHash()) {
      finish({ ...vault, parts: held }, version);
      fetchVaultMedia(vault, adapters, false);
      return done();
    }
    // Something saved here while the vault was on its way: start again from what is stored now.
    if (canonical(readLocal(adapters)) !== canonical(snapshot)) continue;
    if (applyState(adapters, merged, snapshot)) announceSynced();
    writeBase(merged);
    let next = version;
    if (!remote || unbound || !sameState(remote, merged)) {
      const { written, parts } = await push(vault, version, merged, held);
      if (written.kind === 'gone') return gone(vault);
      if (written.kind === 'conflict') {
        keep({ ...vault, version, parts: held });
        continue;
      }
      next = written.version;
      held = parts;
      vault = { ...vault, seenVersion: Math.max(vault.seenVersion, next), boundSeen: true };
    }
    finish({ ...vault, parts: held }, next);
    // Files no card refers to any more leave the server; those this device lacks are fetched.
    mediaRefused = (await sendVaultMedia(vault, adapters.decks.read().decks, adapters, true)) ?? mediaRefused;
    fetchVaultMedia(vault, adapters, remote !== null);
    return done();
  }
  throw new Error('Other devices kept writing; trying again shortly.');
}

// --- Status and the background loop --------------------------------------------------------------

export interface SyncStatus {
  /** 'gone': the server no longer has this browser's vault (removed, or expired unread). */
  phase: 'idle' | 'syncing' | 'offline' | 'error' | 'gone';
  error: string | null;
  lastSyncedAt: string | null;
  /** Until when (epoch ms) the server asked to be left alone, with the error that said so; else null. */
  retryAt: number | null;
}

function initialStatus(): SyncStatus {
  const vault = readVaultSafely();
  return { phase: vault?.gone ? 'gone' : 'idle', error: null, lastSyncedAt: vault?.lastSyncedAt ?? null, retryAt: null };
}

function readVaultSafely(): VaultRecord | null {
  try {
    return typeof localStorage === 'undefined' ? null : readVault();
  } catch {
    return null;
  }
}

let status: SyncStatus = initialStatus();
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const currentStatus = () => status;

let running: Promise<void> | null = null;
/** A link replacement is moving this browser to its new vault: no sync starts meanwhile. */
let replacing = false;
let again = false;
/** Until when (epoch ms) the server asked not to be asked; 0 when it did not. */
let waitUntil = 0;
let waitTimer: ReturnType<typeof setTimeout> | undefined;
// Read through functions: they change while a sync awaits.
const isOnline = () => navigator.onLine;
const wantedAgain = () => again;

/** How long to leave the server alone after `error`, in ms; null when it did not ask. */
export function backOffMs(error: unknown): number | null {
  return error instanceof SyncApiError && error.retryAfter !== null ? error.retryAfter * 1000 : null;
}

function waitThenSync(ms: number) {
  waitUntil = Date.now() + ms;
  clearTimeout(waitTimer);
  waitTimer = setTimeout(() => {
    waitUntil = 0;
    void syncNow();
  }, ms);
}

/** Syncs now, or once more after the sync under way; never two at once, never while told to wait. */
export function syncNow(): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  if (Date.now() < waitUntil || replacing) return Promise.resolve();
  running = (async () => {
    do {
      again = false;
      const vault = readVault();
      if (!vault || vault.gone) break;
      if (!navigator.onLine) {
        status = { ...status, phase: 'offline' };
        emit();
        break;
      }
      status = { ...status, phase: 'syncing', retryAt: null };
      emit();
      try {
        if (hasRetiredVault()) await removeRetired();
        await syncOnce();
      } catch (error) {
        const wait = backOffMs(error);
        if (wait !== null) waitThenSync(wait);
        status = {
          ...status,
          phase: isOnline() ? 'error' : 'offline',
          error: error instanceof Error ? error.message : String(error),
          retryAt: wait === null ? null : waitUntil,
        };
        emit();
        if (wait !== null) break;
      }
    } while (wantedAgain());
  })().finally(() => {
    running = null;
  });
  return running;
}

let started = false;

/** Starts the background sync once per page (a no-op without a vault until one is made). */
export function startBackgroundSync() {
  if (started) return;
  started = true;
  let pushTimer: ReturnType<typeof setTimeout> | undefined;
  // A save waiting for its push: the poll leaves the vault alone until then, so saves in a row
  // (grading cards) are written once every PUSH_GAP_MS at most.
  let pushWaiting = false;
  onLocalChange(() => {
    clearTimeout(pushTimer);
    pushWaiting = true;
    pushTimer = setTimeout(
      () => {
        pushWaiting = false;
        void syncNow();
      },
      pushDelay(Date.now(), lastWriteAt),
    );
  });
  const whenVisible = () => {
    if (document.visibilityState === 'visible') void syncNow();
  };
  window.addEventListener('focus', whenVisible);
  window.addEventListener('online', () => void syncNow());
  window.addEventListener('offline', () => {
    status = { ...status, phase: 'offline' };
    emit();
  });
  document.addEventListener('visibilitychange', whenVisible);
  // Another tab of this browser synced or saved: its writes are already here, the base too.
  window.addEventListener('storage', (event) => {
    if (event.key === VAULT_KEY) {
      const vault = readVault();
      status = { ...status, lastSyncedAt: vault?.lastSyncedAt ?? null, ...(vault?.gone ? { phase: 'gone' as const } : {}) };
      emit();
    }
  });
  setInterval(() => {
    if (!pushWaiting && document.visibilityState === 'visible' && navigator.onLine && readVault()) void syncNow();
  }, POLL_MS);
  void syncNow();
}
