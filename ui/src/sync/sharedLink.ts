// A shared deck's link on its page (/sync/deck#s=…&k=…): the fragment is read once, then taken out
// of the address bar (the history entry keeps its path and query, and remembers which share it
// showed: the id, never the key), and the key is kept in this tab's sessionStorage for that share,
// so a reload in the same tab opens the deck again. The key goes nowhere else.
import { parseShareHash, type ShareLink } from './links';

/** sessionStorage key of a share's link key: one per share, so back and forward find theirs. */
export const sessionKey = (shareId: string) => `sync:sharedDeck:${shareId}`;
/** The history entry's field naming the share it showed. */
export const HISTORY_FIELD = 'hearthSharedDeck';

export interface Place {
  hash: string;
  pathname: string;
  search: string;
}

type Session = Pick<Storage, 'getItem' | 'setItem'>;

const stateRecord = (state: unknown): Record<string, unknown> =>
  typeof state === 'object' && state !== null && !Array.isArray(state) ? (state as Record<string, unknown>) : {};

function read(session: Session | null, key: string): string | null {
  try {
    return session?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** The link to open: the fragment's, else the one this history entry showed (from this tab's session). */
export function readSharedLink(place: Place, historyState: unknown, session: Session | null): ShareLink | null {
  if (place.hash !== '') return parseShareHash(place.hash);
  const id = stateRecord(historyState)[HISTORY_FIELD];
  if (typeof id !== 'string') return null;
  const key = read(session, sessionKey(id));
  return key === null ? null : parseShareHash(`#s=${id}&k=${key}`);
}

export interface HistoryLike {
  readonly state: unknown;
  replaceState(state: unknown, unused: string, url: string): void;
}

/**
 * Once read: the key into the session (for this share), the fragment out of the address bar, and
 * the share's id into the history entry. A fragment that holds no link is taken out all the same.
 */
export function keepSharedLink(link: ShareLink | null, place: Place, history: HistoryLike, session: Session | null): void {
  if (place.hash === '') return;
  let state = history.state;
  if (link) {
    try {
      session?.setItem(sessionKey(link.id), link.key);
      state = { ...stateRecord(history.state), [HISTORY_FIELD]: link.id };
    } catch {
      // No session storage: a reload needs the link again, which is all that is lost.
    }
  }
  history.replaceState(state, '', `${place.pathname}${place.search}`);
}
