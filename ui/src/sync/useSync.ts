// The sync status for screens, and whether this server syncs at all (written into the page by the
// server; asked once per page where it is not).
import { useEffect, useState, useSyncExternalStore } from 'react';
import { embeddedSyncInfo, syncInfo, type SyncInfo } from './api';
import type { SyncStanding } from '../lib/slots';
import { currentStatus, readVault, subscribe, type SyncStatus } from './engine';

export const useSyncStatus = (): SyncStatus => useSyncExternalStore(subscribe, currentStatus, currentStatus);

let info: Promise<SyncInfo | null> | null = null;
let embedded: SyncInfo | null | undefined;
let embeddedRead = false;

function fromPage(): SyncInfo | null | undefined {
  if (!embeddedRead) {
    embedded = embeddedSyncInfo(document);
    embeddedRead = true;
  }
  return embedded;
}

/** undefined while asking; null when sync is off (or the server cannot be reached). */
export function useSyncInfo(): SyncInfo | null | undefined {
  const [value, setValue] = useState<SyncInfo | null | undefined>(fromPage);
  useEffect(() => {
    if (fromPage() !== undefined) return;
    let live = true;
    info ??= syncInfo().catch(() => {
      info = null;
      return null;
    });
    void info.then((answer) => {
      if (live) setValue(answer);
    });
    return () => {
      live = false;
    };
  }, []);
  return value;
}

/** How this browser stands with sync (lib/slots.tsx: the flashcards' storage notice words follow it). */
export function useSyncStanding(): SyncStanding {
  const info = useSyncInfo();
  const status = useSyncStatus();
  if (!info) return 'off';
  const vault = readVault();
  if (!vault) return 'offered';
  return status.phase === 'gone' || vault.gone ? 'stopped' : 'on';
}
