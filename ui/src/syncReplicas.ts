// Test support (imported only by tests): browsers that each hold their own storage, the features'
// real adapters wired as RouterApp wires them, their own ids, their own hybrid logical clock
// reading their own wall clock, and their own sync base; each syncs through one vault as the
// engine does (its state and the vault's, the vault sent as JSON and read back, merged, written).
// STYLE.md habit 15: what sync shows is tested with replicas like these.
import { MemoryStorage } from './lib/memoryStorage';
import type { SyncAdapters } from './lib/syncAdapters';
import { createCalendarsSyncAdapter } from './calendars/syncAdapter';
import { createDeckStore, type DeckStore } from './flashcards/storage';
import { createDecksSyncAdapter, createMediaSyncAdapter } from './flashcards/syncAdapter';
import { sha256Hex, type MediaFile, type MediaStore } from './flashcards/media/store';
import { createClock, type Clock, type ClockState } from './sync/hlc';
import { applyState, baseOf, emptyBase, localState, parseVault, readLocal, toVault, type Base } from './sync/local';
import { merge, stateStamp, type VaultState } from './sync/merge';

export interface Replica {
  name: string;
  storage: MemoryStorage;
  store: DeckStore;
  adapters: SyncAdapters;
  base: Base;
  clock: Clock;
}

/** A media store in memory (files by SHA-256), as the browser's IndexedDB one answers. */
export function memoryMediaStore(): MediaStore {
  const files = new Map<string, MediaFile>();
  return {
    async put(bytes, type) {
      const copy = bytes instanceof Uint8Array ? bytes.slice().buffer : bytes.slice(0);
      const hash = await sha256Hex(copy);
      if (!files.has(hash)) files.set(hash, { hash, type, bytes: copy, size: copy.byteLength });
      return hash;
    },
    get: (hash) => Promise.resolve(files.get(hash)),
    has: (hash) => Promise.resolve(files.has(hash)),
    hashes: () => Promise.resolve([...files.keys()]),
    usage: () => Promise.resolve([...files.values()].reduce((sum, file) => sum + file.size, 0)),
    prune(keep) {
      let removed = 0;
      for (const hash of [...files.keys()]) if (!keep.has(hash) && files.delete(hash)) removed += 1;
      return Promise.resolve(removed);
    },
  };
}

/** A hybrid logical clock kept in memory, reading `wall` as this browser's time. */
export function memoryClock(wall: () => number, device: string): Clock {
  let state: ClockState | null = { wall: 0, counter: 0, device };
  return createClock(
    {
      clock: () => state,
      setClock: (next) => {
        state = next;
      },
    },
    wall,
  );
}

/** A fresh browser named `name` (its ids start with it) whose wall clock is `wall`. */
export function replica(name: string, wall: () => number): Replica {
  const storage = new MemoryStorage();
  let n = 0;
  const makeId = () => `${name}-${(n += 1)}`;
  return {
    name,
    storage,
    store: createDeckStore(storage, makeId),
    adapters: {
      decks: createDecksSyncAdapter(storage, makeId),
      calendars: createCalendarsSyncAdapter(storage),
      media: createMediaSyncAdapter(memoryMediaStore()),
    },
    base: emptyBase(),
    clock: memoryClock(wall, name),
  };
}

/** One sync as the engine does it: this browser's state, then the vault's (received by the clock), merged; the new vault. */
export function syncThrough(b: Replica, vault: VaultState): VaultState {
  const snapshot = readLocal(b.adapters);
  const local = localState(snapshot, b.base, b.clock, b.adapters.decks);
  // The vault travels as JSON and is read with the adapters, as the engine reads it.
  const remote = parseVault(JSON.parse(JSON.stringify(toVault(vault))), b.adapters);
  if (!remote) throw new Error('the vault did not read back');
  b.clock.receive(stateStamp(remote));
  const merged = merge(remote, local);
  applyState(b.adapters, merged, snapshot);
  b.base = baseOf(merged);
  return merged;
}
