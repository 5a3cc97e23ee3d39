// Syncing this browser with its vault: pull (a cheap 304 when nothing changed), merge, write back
// what changed here, push (compare-and-swap on the version; on a conflict pull again and merge),
// and remember what was synced as the base for telling local edits apart next time. In the
// background it runs when something is saved here, on focus, when the page becomes visible, when
// the connection returns, and every few seconds while the page is visible and online.
import { announceSynced, onLocalChange } from '../lib/localChanges';
import { syncAdapters } from '../lib/syncAdapters';
import { createBlob, readBlob, writeBlob } from './api';
import { newKey, open, seal } from './crypto';
import type { VaultLink } from './links';
import { applyState, baseOf, emptyBase, localState, parseVault, readLocal, toVault, type Base } from './local';
import { canonical, merge, sameState, type VaultState } from './merge';

export const VAULT_KEY = 'sync:vault';
export const BASE_KEY = 'sync:base';
/** A hash of the state last synced, so a poll that finds the vault unchanged uploads nothing. */
export const SYNCED_HASH_KEY = 'sync:syncedHash';
/** How often a visible page asks whether another device wrote (a 304 when not). */
export const POLL_MS = 3000;
const MAX_ROUNDS = 4;

export interface VaultRecord extends VaultLink {
  /** The vault version this browser last merged. */
  version: number;
  lastSyncedAt: string | null;
}

function readJson(key: string): unknown {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? null : (JSON.parse(raw) as unknown);
  } catch {
    return null;
  }
}

export function readVault(): VaultRecord | null {
  const value = readJson(VAULT_KEY) as Partial<VaultRecord> | null;
  if (!value || typeof value.id !== 'string' || typeof value.key !== 'string' || typeof value.token !== 'string') return null;
  return {
    id: value.id,
    key: value.key,
    token: value.token,
    version: typeof value.version === 'number' ? value.version : 0,
    lastSyncedAt: typeof value.lastSyncedAt === 'string' ? value.lastSyncedAt : null,
  };
}

function writeVault(vault: VaultRecord) {
  localStorage.setItem(VAULT_KEY, JSON.stringify(vault));
}

function readBase(): Base {
  const value = readJson(BASE_KEY) as Base | null;
  return value && typeof value === 'object' && 'decks' in value ? value : emptyBase();
}

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

function writeBase(state: VaultState) {
  localStorage.setItem(BASE_KEY, JSON.stringify(baseOf(state)));
  localStorage.setItem(SYNCED_HASH_KEY, fingerprint(canonical(state)));
}

/** Stops syncing this browser; its data stays, the vault stays for the other devices. */
export function forgetVault() {
  localStorage.removeItem(VAULT_KEY);
  localStorage.removeItem(BASE_KEY);
  localStorage.removeItem(SYNCED_HASH_KEY);
  status = { ...status, phase: 'idle', error: null, lastSyncedAt: null };
  emit();
}

/** "Sync this browser": a new vault holding everything here. */
export async function createVault(): Promise<VaultRecord> {
  const key = await newKey();
  const state = localState(readLocal(await syncAdapters()), emptyBase(), Date.now());
  const created = await createBlob('vaults', await seal(toVault(state), key));
  const vault: VaultRecord = { id: created.id, key, token: created.token, version: created.version, lastSyncedAt: new Date().toISOString() };
  writeVault(vault);
  writeBase(state);
  status = { ...status, lastSyncedAt: vault.lastSyncedAt };
  emit();
  return vault;
}

/** Opening a vault's link: everything here is merged with the vault at the first sync. */
export async function joinVault(link: VaultLink): Promise<void> {
  writeVault({ ...link, version: 0, lastSyncedAt: null });
  localStorage.removeItem(BASE_KEY);
  localStorage.removeItem(SYNCED_HASH_KEY);
  await syncNow();
}

function finish(vault: VaultRecord, version: number) {
  const lastSyncedAt = new Date().toISOString();
  writeVault({ ...vault, version, lastSyncedAt });
  status = { phase: 'idle', error: null, lastSyncedAt };
  emit();
}

/** One sync: pull, merge, apply, push; repeated when another device wrote in between. */
async function syncOnce(): Promise<void> {
  const adapters = await syncAdapters();
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const vault = readVault();
    if (!vault) return;
    const snapshot = readLocal(adapters);
    const local = localState(snapshot, readBase(), Date.now());
    const pulled = await readBlob('vaults', vault.id, vault.version || undefined);
    let remote: VaultState | null = null;
    let version = vault.version;
    if (pulled.kind === 'blob') {
      remote = parseVault(await open(pulled.body, vault.key), adapters);
      if (!remote) throw new Error('The vault holds data this version of the app does not read.');
      version = pulled.version;
    }
    // Unchanged since the last merge: this browser's state already contains the vault's.
    const merged = remote ? merge(remote, local) : local;
    if (!remote && fingerprint(canonical(local)) === localStorage.getItem(SYNCED_HASH_KEY)) {
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
      if (written.kind === 'conflict') {
        writeVault({ ...vault, version });
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
  phase: 'idle' | 'syncing' | 'offline' | 'error';
  error: string | null;
  lastSyncedAt: string | null;
}

let status: SyncStatus = { phase: 'idle', error: null, lastSyncedAt: readVaultSafely()?.lastSyncedAt ?? null };
const listeners = new Set<() => void>();

function readVaultSafely(): VaultRecord | null {
  try {
    return typeof localStorage === 'undefined' ? null : readVault();
  } catch {
    return null;
  }
}

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
// Read through functions: they change while a sync awaits.
const isOnline = () => navigator.onLine;
const wantedAgain = () => again;

/** Syncs now, or once more after the sync under way; never two at once. */
export function syncNow(): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    do {
      again = false;
      if (!readVault()) break;
      if (!navigator.onLine) {
        status = { ...status, phase: 'offline' };
        emit();
        break;
      }
      status = { ...status, phase: 'syncing' };
      emit();
      try {
        await syncOnce();
      } catch (error) {
        status = { ...status, phase: isOnline() ? 'error' : 'offline', error: error instanceof Error ? error.message : String(error) };
        emit();
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
      status = { ...status, lastSyncedAt: readVault()?.lastSyncedAt ?? null };
      emit();
    }
  });
  setInterval(() => {
    if (document.visibilityState === 'visible' && navigator.onLine && readVault()) void syncNow();
  }, POLL_MS);
  void syncNow();
}
