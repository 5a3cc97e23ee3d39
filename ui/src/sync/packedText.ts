// Large values sync keeps in localStorage (the base of the last merge holds every card's fields
// and stamps: about 2.7 MB for 10,000 cards as JSON), stored deflated as base64 so they take a
// fraction of the browser's 5 MB for the site. Small values stay plain JSON, and plain JSON
// written by earlier versions reads as before. Pure.
import { strFromU8, strToU8, unzlibSync, zlibSync } from 'fflate';
import { fromBase64Url, toBase64Url } from './crypto';

/** What a packed value starts with (no JSON text does). */
export const PACKED_PREFIX = 'z1:';
/** Below this many characters a value is stored as it is. */
export const PACK_FROM = 16 * 1024;

export function packText(text: string): string {
  if (text.length < PACK_FROM) return text;
  return PACKED_PREFIX + toBase64Url(zlibSync(strToU8(text), { level: 6 }));
}

/** The text `packText` was given; null when a packed value is damaged. */
export function unpackText(stored: string): string | null {
  if (!stored.startsWith(PACKED_PREFIX)) return stored;
  const bytes = fromBase64Url(stored.slice(PACKED_PREFIX.length));
  if (!bytes) return null;
  try {
    return strFromU8(unzlibSync(bytes));
  } catch {
    return null;
  }
}
