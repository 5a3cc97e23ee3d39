// Files a card refers to that this device does not hold yet (a picture added on another device,
// a shared deck's sound): whoever can bring them registers a fetcher here (sync does, for its
// vault and the share links a deck was added from), and the card's media ask it while they show
// a placeholder. Flashcards does not import sync: this small registry is where they meet.

/** Brings the file with this SHA-256 into the media store; true once it is there. */
export type MediaFetcher = (hash: string) => Promise<boolean>;

let fetcher: MediaFetcher | null = null;

/** Registers (or, with null, removes) the one fetcher. */
export function registerMediaFetcher(fn: MediaFetcher | null): void {
  fetcher = fn;
}

/** Asks the fetcher for a file the store lacks; false when none is registered or it could not be brought. */
export function fetchMissingMedia(hash: string): Promise<boolean> {
  return fetcher ? fetcher(hash).catch(() => false) : Promise.resolve(false);
}
