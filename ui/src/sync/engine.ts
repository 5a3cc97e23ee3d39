// Syncing this browser with its vault: pull (a cheap 304 when nothing changed), merge, write back
// what changed here, push (compare-and-swap on the version; on a conflict pull again and merge),
// and remember what was synced as the base for telling local edits apart next time. In the
// background it runs when something is saved here, on focus, when the page becomes visible, when
// the connection returns, and every few seconds while the page is visible and online. A server
// that says to wait (429, 503 with Retry-After) is left alone that long; a vault the server no
// longer has (404: removed, or expired unread) stops the syncing until the learner starts again.
import { announceSynced, onLocalChange } from '../lib/localChanges';
import { syncAdapters } from '../lib/syncAdapters';
import { createBlob, readBlob, SyncApiError, writeBlob } from './api';
import { newKey, newToken, open, seal } from './crypto';
import type { VaultLink } from './links';
import { createClock, type Clock } from './hlc';
import { applyState, baseOf, emptyBase, localState, parseVault, readLocal, toVault } from './local';
import { canonical, merge, sameState, stateStamp, type VaultState } from './merge';
import { syncStore, VAULT_KEY, type VaultRecord } from './state';

export type { VaultRecord };

/** How often a visible page asks whether another device wrote (a 304 when not). */
export const POLL_MS = 3000;
const MAX_ROUNDS = 4;

export const readVault = (): VaultRecord | null => syncStore.vault();

/** Whether a "Sync this browser" was sent and its answer never came (sending it again finishes it). */
export const hasPendingVault = (): boolean => syncStore.pendingVault() !== null;

/** FNV-1a, 32 bits twice (two seeds): enough to notice a change, not a security measure. */
export function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return `${(a >>> 0).toString(16)}${(b >>> 0).toString(16)}`;
}

let clock: Clock | null = null;
/** This browser's hybrid logical clock (kept by state.ts), made at its first use. */
const theClock = (): Clock => (clock ??= createClock(syncStore));

const writeBase = (state: VaultState) => syncStore.setBase(baseOf(state), fingerprint(canonical(state)));

/** Stops syncing this browser; its data stays, the vault stays for the other devices. */
export function forgetVault() {
  syncStore.forget();
  waitUntil = 0;
  status = { phase: 'idle', error: null, lastSyncedAt: null, retryAt: null };
  emit();
}

/**
 * "Sync this browser" (and starting again after the vault was removed): a new vault holding
 * everything here. Its key and write token are kept before the request goes, so a create whose
 * answer was lost is finished by calling this again: the server answers with the same vault. Null
 * when the site wants its key and the visitor cancelled.
 */
export async function createVault(): Promise<VaultRecord | null> {
  const adapters = await syncAdapters();
  const pending = syncStore.pendingVault() ?? { key: await newKey(), token: newToken() };
  syncStore.setPendingVault(pending);
  const state = localState(readLocal(adapters), emptyBase(), theClock(), adapters.decks);
  const created = await createBlob('vaults', await seal(toVault(state), pending.key), pending.token);
  if (!created) return null;
  const lastSyncedAt = new Date().toISOString();
  // Sent again after a lost answer, the vault holds what the first try sent, not this state:
  // merge with it from scratch (version 0, no base) at the next sync.
  const vault: VaultRecord = {
    id: created.id,
    key: pending.key,
    token: created.token,
    version: created.replayed ? 0 : created.version,
    lastSyncedAt,
    gone: false,
  };
  syncStore.setVault(vault);
  if (created.replayed) syncStore.clearBase();
  else writeBase(state);
  syncStore.setPendingVault(null);
  waitUntil = 0;
  status = { phase: 'idle', error: null, lastSyncedAt, retryAt: null };
  emit();
  if (created.replayed) void syncNow();
  return vault;
}

/** Opening a vault's link: everything here is merged with the vault at the first sync. */
export async function joinVault(link: VaultLink): Promise<void> {
  syncStore.forget();
  syncStore.setVault({ ...link, version: 0, lastSyncedAt: null, gone: false });
  status = { phase: 'idle', error: null, lastSyncedAt: null, retryAt: null };
  await syncNow();
}

function finish(vault: VaultRecord, version: number) {
  const lastSyncedAt = new Date().toISOString();
  syncStore.setVault({ ...vault, version, lastSyncedAt });
  status = { phase: 'idle', error: null, lastSyncedAt, retryAt: null };
  emit();
}

/** The server has no such vault any more: say so, and stop asking until the learner starts again. */
function gone(vault: VaultRecord) {
  syncStore.setVault({ ...vault, gone: true });
  status = { ...status, phase: 'gone', error: null, retryAt: null };
  emit();
}

/** One sync: pull, merge, apply, push; repeated when another device wrote in between. */
async function syncOnce(): Promise<void> {
  const adapters = await syncAdapters();
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const vault = readVault();
    if (!vault || vault.gone) return;
    const snapshot = readLocal(adapters);
    const local = localState(snapshot, syncStore.base(), theClock(), adapters.decks);
    const pulled = await readBlob('vaults', vault.id, vault.version || undefined);
    if (pulled.kind === 'gone') return gone(vault);
    let remote: VaultState | null = null;
    let version = vault.version;
    if (pulled.kind === 'blob') {
      remote = parseVault(await open(pulled.body, vault.key), adapters);
      if (!remote) throw new Error('The vault holds data this version of the app does not read.');
      // An edit made here after this read is later than everything in it.
      theClock().receive(stateStamp(remote));
      version = pulled.version;
    }
    // Unchanged since the last merge: this browser's state already contains the vault's.
    const merged = remote ? merge(remote, local) : local;
    if (!remote && fingerprint(canonical(local)) === syncStore.syncedHash()) {
      finish(vault, version);
      return;
    }
    // Something saved here while the vault was on its way: start again from what is stored now.
    if (canonical(readLocal(adapters)) !== canonical(snapshot)) continue;
    if (applyState(adapters, merged, snapshot)) announceSynced();
    writeBase(merged);
    let next = version;
    if (!remote || !sameState(remote, merged)) {
      const written = await writeBlob('vaults', vault.id, vault.token, version, await seal(toVault(merged), vault.key));
      if (written.kind === 'gone') return gone(vault);
      if (written.kind === 'conflict') {
        syncStore.setVault({ ...vault, version });
        continue;
      }
      next = written.version;
    }
    finish(vault, next);
    return;
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
  if (Date.now() < waitUntil) return Promise.resolve();
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
  onLocalChange(() => {
    clearTimeout(pushTimer);
    pushTimer = setTimeout(() => void syncNow(), 250);
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
    if (document.visibilityState === 'visible' && navigator.onLine && readVault()) void syncNow();
  }, POLL_MS);
  void syncNow();
}
