// Opening a vault or shared deck as what it claims to be: the body must be sealed for its kind, id
// and the version the server stores it as (crypto.ts's additional data), and that version must not
// be older than one this device has already seen. A body sealed before binding existed is taken
// only while this device has never seen a bound one for that blob (then the next write binds it).
// Anything else is refused in words, before any of it is used: the device's own data stays as is.
// Then the inflated size and the parsed shape are checked against limits.ts's bounds.
import { decrypt, parseInflated, type Place } from './crypto';
import { checkLimits, OPEN_LIMITS, type OpenLimits } from './limits';

/** What a device remembers of a blob it has opened. */
export interface Seen {
  /** The highest version opened or written here (0: none). */
  seenVersion: number;
  /** A body bound to its place was opened or written here: unbound ones are refused from then on. */
  boundSeen: boolean;
}

export const NOTHING_SEEN: Seen = { seenVersion: 0, boundSeen: false };

export interface Opened {
  value: unknown;
  /** The body was sealed without its place (before binding): the next write should bind it. */
  unbound: boolean;
  /** What to remember now. */
  seen: Seen;
}

const noun = (kind: Place['kind']) => (kind === 'vaults' ? 'vault' : 'shared deck');
const KEPT = 'It was refused, and nothing here was changed.';

/**
 * The value of `body`, stored as `place` on the server, for a device that remembers `seen` of it.
 * Throws in words when it is older than what was seen, sealed for another place (a replay or a
 * move), an unbound body after a bound one, undecryptable, or too large.
 */
export async function openPlaced(body: Uint8Array<ArrayBuffer>, keyText: string, place: Place, seen: Seen, limits: OpenLimits = OPEN_LIMITS): Promise<Opened> {
  const what = noun(place.kind);
  if (place.version < seen.seenVersion) {
    throw new Error(
      `The server sent an older version of this ${what} (version ${place.version}) than this device has already seen (version ${seen.seenVersion}). ${KEPT}`,
    );
  }
  let plain = await decrypt(body, keyText, place);
  let unbound = false;
  if (!plain) {
    const legacy = await decrypt(body, keyText, null);
    if (legacy && seen.boundSeen) {
      throw new Error(`The server sent an old unprotected copy of this ${what} after this device had seen a protected one. ${KEPT}`);
    }
    if (!legacy) {
      throw new Error(
        seen.seenVersion > 0 || seen.boundSeen
          ? `The server sent data that was not written as version ${place.version} of this ${what} (an old copy put back, or one moved from elsewhere). ${KEPT}`
          : 'This link’s key does not open the stored data, or the data was not written for this link: copy the whole link again.',
      );
    }
    plain = legacy;
    unbound = true;
  }
  const value = await parseInflated(plain, limits.unpackedBytes, what);
  checkLimits(value, what, limits);
  return {
    value,
    unbound,
    seen: { seenVersion: Math.max(seen.seenVersion, place.version), boundSeen: seen.boundSeen || !unbound },
  };
}
