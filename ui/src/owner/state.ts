// What the owner page shows, as a reducer: the first load, then the answer (kept while the next
// check runs, so nothing empties), a site without a key (the page does not exist there), a key
// the visitor did not give, or a failure in words.
import type { Owner } from './owner';

export type OwnerState =
  /** The first load, before any answer. */
  | { kind: 'loading' }
  /** The site has no publish key: no owner page, the app's "page not found". */
  | { kind: 'notFound' }
  /** The visitor cancelled the prompt for the key. */
  | { kind: 'noKey' }
  | { kind: 'failed'; message: string }
  | {
      kind: 'ready';
      owner: Owner;
      checkedAt: Date;
      /** A check runs; `owner` is the last answer meanwhile. */
      checking: boolean;
      /** Why the last check gave no new answer; null when it did. */
      problem: string | null;
    };

export type OwnerAction =
  | { type: 'check' }
  | { type: 'loaded'; owner: Owner; at: Date }
  | { type: 'cancelled' }
  /** `status` 0: the server was not reached, or its answer could not be read. */
  | { type: 'failed'; status: number; message: string };

export const initialOwnerState: OwnerState = { kind: 'loading' };

/** The server's words as the end of a sentence. */
const ending = (message: string) => (/[.!?]$/.test(message) ? message : `${message}.`);

export const NO_KEY_TEXT = "This page needs the site's publish key.";

export function ownerReducer(state: OwnerState, action: OwnerAction): OwnerState {
  switch (action.type) {
    case 'check':
      if (state.kind === 'ready') return state.checking ? state : { ...state, checking: true, problem: null };
      return { kind: 'loading' };
    case 'loaded':
      return { kind: 'ready', owner: action.owner, checkedAt: action.at, checking: false, problem: null };
    case 'cancelled':
      if (state.kind === 'ready')
        return { ...state, checking: false, problem: `Not checked again: ${NO_KEY_TEXT.charAt(0).toLowerCase()}${NO_KEY_TEXT.slice(1)}` };
      return { kind: 'noKey' };
    case 'failed':
      // The key was taken off the server since: the page is gone with it.
      if (action.status === 404) return { kind: 'notFound' };
      if (state.kind === 'ready') return { ...state, checking: false, problem: `Not checked again: ${ending(action.message)}` };
      return { kind: 'failed', message: `The owner page could not be loaded: ${ending(action.message)}` };
  }
}
