// Decks the browser keeps (issue 26): a browser may clear a site's storage when space runs short,
// and Safari does after seven days without a visit, unless the site's storage is persistent. Once
// the learner has a deck, the deck list asks for that (navigator.storage.persist()); when it is
// not granted, a quiet notice says so. The progress page shows what the site stores. Pure but for
// the StorageManager passed in, so tests hand in their own.
import { formatBytes } from '../lib/units';

/** The parts of navigator.storage used here; every one may be missing in an older browser. */
export interface StorageManagerLike {
  persisted?: () => Promise<boolean>;
  persist?: () => Promise<boolean>;
  estimate?: () => Promise<{ usage?: number; quota?: number }>;
}

/** kept: the browser will not clear the decks on its own; not-kept: it may; unsupported: it cannot say. */
export type KeepState = 'kept' | 'not-kept' | 'unsupported';

/** The browser's StorageManager, or undefined where there is none (or reading it throws). */
export function browserStorageManager(): StorageManagerLike | undefined {
  try {
    return typeof navigator === 'undefined' ? undefined : navigator.storage;
  } catch {
    return undefined;
  }
}

/** Asks the browser to keep the site's storage, unless it already does; never throws. */
export async function askToKeep(manager: StorageManagerLike | undefined): Promise<KeepState> {
  if (!manager || typeof manager.persist !== 'function') return 'unsupported';
  try {
    if (typeof manager.persisted === 'function' && (await manager.persisted())) return 'kept';
    return (await manager.persist()) ? 'kept' : 'not-kept';
  } catch {
    return 'not-kept';
  }
}

/**
 * One question per page load: the answer does not change while the page is open, and a browser
 * that asks the learner (Firefox) must not ask on every visit to the list.
 */
export function createKeeper(manager: () => StorageManagerLike | undefined) {
  let answer: Promise<KeepState> | null = null;
  return {
    ask(): Promise<KeepState> {
      answer ??= askToKeep(manager());
      return answer;
    },
  };
}

/** Whether the deck list shows the notice: there is something to lose, and it is not kept. */
export function showKeepNotice(deckCount: number, state: KeepState | null): boolean {
  return deckCount > 0 && (state === 'not-kept' || state === 'unsupported');
}

/** Bytes the site stores, and what the browser allows it (null when it does not say). */
export interface StorageUse {
  usage: number;
  quota: number | null;
}

/** What the site stores, as the browser estimates it; null when it cannot say. */
export async function storageUsed(manager: StorageManagerLike | undefined): Promise<StorageUse | null> {
  if (!manager || typeof manager.estimate !== 'function') return null;
  try {
    const { usage, quota } = await manager.estimate();
    if (typeof usage !== 'number' || !Number.isFinite(usage) || usage < 0) return null;
    return { usage, quota: typeof quota === 'number' && Number.isFinite(quota) && quota > 0 ? quota : null };
  } catch {
    return null;
  }
}

/**
 * The progress page's line: undefined while the browser is asked, null when it cannot say;
 * `mediaBytes`, the cards' pictures and sounds (part of the usage), named when there are any.
 */
export function storageUsedText(used: StorageUse | null | undefined, mediaBytes = 0): string {
  const media = mediaBytes > 0 ? `${formatBytes(mediaBytes)} of pictures and sounds` : '';
  if (used === undefined) return 'Measuring the storage this site uses on this device…';
  if (used === null) {
    return media === ''
      ? 'This browser does not say how much storage this site uses.'
      : `This browser does not say how much storage this site uses; the cards’ pictures and sounds take ${formatBytes(mediaBytes)}.`;
  }
  const allowed = used.quota === null ? '' : ` (the browser allows up to ${formatBytes(used.quota)})`;
  const parts = media === '' ? 'your decks, their review logs and the app itself' : `your decks, their review logs, ${media} and the app itself`;
  return `This site stores ${formatBytes(Math.max(used.usage, mediaBytes))} on this device${allowed}: ${parts}.`;
}
