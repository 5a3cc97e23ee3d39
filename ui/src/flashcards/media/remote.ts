// Fetching a file this device lacks (a card synced from another device whose picture has not come
// yet): the sync part registers the one fetcher here; the card's media asks it for a missing hash
// and shows the file once it answers true. Without a fetcher the card says the file is not on this
// device. Each hash is asked for once at a time.
type Fetcher = (hash: string) => Promise<boolean>;

let fetcher: Fetcher | null = null;
const pending = new Map<string, Promise<boolean>>();
const listeners = new Set<() => void>();

/** Sets the fetcher (null removes it); answers a function that removes it again. */
export function registerMediaFetcher(fn: Fetcher | null): () => void {
  fetcher = fn;
  for (const listener of listeners) listener();
  return () => {
    if (fetcher === fn) registerMediaFetcher(null);
  };
}

export const hasMediaFetcher = () => fetcher !== null;

/** Calls `listener` when a fetcher is registered or removed; answers the unsubscribe. */
export function onFetcherChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Asks the fetcher for the file `hash`: true once it is in the media store; false without a fetcher or when it failed. */
export function fetchMissing(hash: string): Promise<boolean> {
  const current = fetcher;
  if (!current) return Promise.resolve(false);
  let asked = pending.get(hash);
  if (!asked) {
    asked = current(hash)
      .catch(() => false)
      .finally(() => pending.delete(hash));
    pending.set(hash, asked);
  }
  return asked;
}
