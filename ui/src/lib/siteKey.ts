// This site's key (the server's publish or sync key), kept once for every feature that needs it,
// and the one rule for asking for it: a call is made with the stored key; on a 401 the visitor is
// asked (told so when a stored key was refused), the answer is kept and the call made again;
// cancelling the question stops. Each feature asks in its own words (sync in a dialog). Calendars send it as X-Publish-Key, sync as X-Sync-Key.

/** The one place the key is kept. */
export const SITE_KEY = 'site:key';
/** Where the calendar editor and sync each kept their own copy before; read once, then removed. */
export const LEGACY_KEYS = ['calendars:publishKey', 'sync:publishKey'] as const;

export interface SiteKeyStore {
  /** The stored key, or null (none, blank, or storage unavailable). */
  read(): string | null;
  /** Keeps the key (trimmed); false when it could not be kept (it is still used for this call). */
  write(key: string): boolean;
  clear(): void;
}

const usable = (value: string | null | undefined): string | null => {
  const key = value?.trim() ?? '';
  return key === '' ? null : key;
};

export function createSiteKeyStore(storage: Storage | null): SiteKeyStore {
  let migrated = false;
  // The first use moves an older copy to SITE_KEY (the calendar editor's first: it was asked for
  // most often) and removes both older keys, whether or not one was moved.
  const migrate = () => {
    if (migrated || !storage) return;
    migrated = true;
    try {
      if (usable(storage.getItem(SITE_KEY)) === null) {
        const old = LEGACY_KEYS.map((key) => usable(storage.getItem(key))).find((key) => key !== null);
        if (old) storage.setItem(SITE_KEY, old);
      }
      for (const key of LEGACY_KEYS) storage.removeItem(key);
    } catch {
      // Storage refused: the older keys stay and the move is tried again on the next page.
    }
  };
  return {
    read() {
      migrate();
      try {
        return usable(storage?.getItem(SITE_KEY));
      } catch {
        return null;
      }
    },
    write(key) {
      migrate();
      try {
        if (!storage) return false;
        storage.setItem(SITE_KEY, key.trim());
        return true;
      } catch {
        return false;
      }
    },
    clear() {
      migrate();
      try {
        storage?.removeItem(SITE_KEY);
      } catch {
        // A stale key only costs one more prompt.
      }
    },
  };
}

export interface KeyDeps {
  readKey(): string | null;
  writeKey(key: string): void;
  clearKey(): void;
  /**
   * Asks the visitor (the browser's prompt, or a feature's own dialog, which answers later); null
   * or blank when they cancel. `refused`: a key was sent and refused.
   */
  askKey(refused: boolean): string | null | Promise<string | null>;
}

export interface KeyPrompts {
  /** The first question. */
  ask: string;
  /** The question after the stored or given key was refused. */
  refused: string;
}

export type KeyedOutcome<T> =
  | { kind: 'done'; value: T }
  | { kind: 'cancelled' }
  /** `status` 0: not an answer from the server (unreachable, or not an HTTP failure); `error` as thrown. */
  | { kind: 'failed'; message: string; status: number; error: unknown };

/** How many keys one call tries before it gives up with the server's answer. */
export const MAX_KEY_ATTEMPTS = 4;

/** The HTTP status an error carries (the features' API errors have one), else 0. */
function statusOf(error: unknown): number {
  if (!(error instanceof Error) || !('status' in error)) return 0;
  return typeof error.status === 'number' ? error.status : 0;
}

/** Runs `action` with the stored key, asking for one on a 401 as the module comment says. */
export async function withSiteKey<T>(action: (key: string | null) => Promise<T>, deps: KeyDeps): Promise<KeyedOutcome<T>> {
  let key = deps.readKey();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { kind: 'done', value: await action(key) };
    } catch (error) {
      const status = statusOf(error);
      const message = error instanceof Error ? error.message : String(error);
      if (status !== 401 || attempt >= MAX_KEY_ATTEMPTS) return { kind: 'failed', message, status, error };
      const refused = key !== null;
      if (refused) deps.clearKey();
      const answer = (await deps.askKey(refused))?.trim() ?? '';
      if (answer === '') return { kind: 'cancelled' };
      deps.writeKey(answer);
      key = answer;
    }
  }
}

/** The deps of a feature: the one stored key, asked for with the feature's own words. */
export function keyDeps(store: SiteKeyStore, prompts: KeyPrompts, ask: (text: string) => string | null): KeyDeps {
  return {
    readKey: () => store.read(),
    writeKey: (key) => void store.write(key),
    clearKey: () => store.clear(),
    askKey: (refused) => ask(refused ? prompts.refused : prompts.ask),
  };
}

function browserStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

/** The key of this browser. */
export const siteKey: SiteKeyStore = createSiteKeyStore(browserStorage());

/** The browser's deps with a feature's words: window.prompt asks. */
export const browserKeyDeps = (prompts: KeyPrompts): KeyDeps =>
  keyDeps(siteKey, prompts, (text) => (typeof window === 'undefined' ? null : window.prompt(text)));
