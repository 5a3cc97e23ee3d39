// A card's pictures and sounds as the card stores them: each a reference to one file kept once in
// the media store (store.ts) by the SHA-256 of its bytes, with the file's name (as Anki names it:
// the name an export writes) and the card field it belongs to, which says the side it shows on.
// The bytes never travel inside a card: decks, backups' JSON and sync carry only these references.
import * as v from 'valibot';

/** The fields a reference can sit in (the card's texts: deck.ts's CardField). */
export const MEDIA_FIELDS = ['front', 'back', 'pronunciation', 'gender', 'example'] as const;
export type MediaField = (typeof MEDIA_FIELDS)[number];

/** What a file is shown as: a picture, or a sound with a play control. */
export type MediaKind = 'image' | 'sound';

/** A file's key in the store: its SHA-256 as 64 lower-case hex digits. */
export const isMediaHash = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

/** The longest file name a reference keeps (Anki's own limit is 120 bytes). */
export const MAX_MEDIA_NAME = 255;

/** A card holds at most this many references (a note with a picture and a few sounds per side). */
export const MAX_MEDIA_PER_CARD = 16;

export const MediaRefSchema = v.object({
  hash: v.custom<string>(isMediaHash),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MEDIA_NAME)),
  kind: v.picklist(['image', 'sound']),
  field: v.picklist(MEDIA_FIELDS),
});

export type MediaRef = v.InferOutput<typeof MediaRefSchema>;

/** A card's references as stored: unusable entries dropped, each file once per field, at most MAX_MEDIA_PER_CARD. */
export const mediaList = v.fallback(
  v.pipe(
    v.array(v.unknown()),
    v.transform((items) => {
      const seen = new Set<string>();
      const refs: MediaRef[] = [];
      for (const item of items) {
        const parsed = v.safeParse(MediaRefSchema, item);
        if (!parsed.success) continue;
        const key = `${parsed.output.field}:${parsed.output.hash}`;
        if (seen.has(key)) continue;
        seen.add(key);
        refs.push(parsed.output);
        if (refs.length === MAX_MEDIA_PER_CARD) break;
      }
      return refs;
    }),
  ),
  () => [],
);

/** The hashes a set of cards refers to (what the store must keep). */
export function referencedHashes(cards: Iterable<{ readonly media: readonly MediaRef[] }>): Set<string> {
  const hashes = new Set<string>();
  for (const card of cards) for (const ref of card.media) hashes.add(ref.hash);
  return hashes;
}
