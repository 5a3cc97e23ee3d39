// Anki note ids ("guids") for Hearth cards: what Anki's own guid64() makes, 64 random bits written
// in Anki's base 91 (letters, digits and the printable marks Anki allows; at most 10 characters),
// given to a card when it is made (editor, every import) and kept through storage, sync, backups
// and exports, so a deck exported to Anki and imported over the original adds no duplicate. A
// card stored before guids existed gets one derived from its deck id and card id at export
// (derivedGuid), so two exports of the same old deck agree.

const TABLE = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~';
const BASE = BigInt(TABLE.length);

/** A number in Anki's base 91 (Anki's `base91`: most significant digit first, '' for 0). */
export function base91(value: bigint): string {
  let rest = value;
  let text = '';
  while (rest > 0n) {
    text = `${TABLE.charAt(Number(rest % BASE))}${text}`;
    rest /= BASE;
  }
  return text;
}

const toBigInt = (bytes: Uint8Array) => bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);

/** A new guid from 64 random bits (Anki's guid64). */
export function newGuid(random: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array = (bytes) => crypto.getRandomValues(bytes)): string {
  // A zero draw would be '' (Anki's guid64 never meets it either): one in 2^64, and drawn again.
  for (;;) {
    const guid = base91(toBigInt(random(new Uint8Array(8))));
    if (guid !== '') return guid;
  }
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

/**
 * The guid of a card stored without one: FNV-1a (64 bits) of "hearth:{deckId}:{cardId}" in UTF-8,
 * in base 91. The same deck and card give the same guid on every device and export; a different
 * card id gives an unrelated one.
 */
export function derivedGuid(deckId: string, cardId: string): string {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(`hearth:${deckId}:${cardId}`)) hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK;
  return base91(hash === 0n ? 1n : hash);
}

/** The card's guid, or the one derived for it when it has none. */
export const guidOf = (deckId: string, card: { id: string; guid: string }) => (card.guid !== '' ? card.guid : derivedGuid(deckId, card.id));
