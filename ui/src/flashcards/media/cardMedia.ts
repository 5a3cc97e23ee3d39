// A card's list of pictures and sounds as the editor changes it: a reference added to the field
// the learner chose (each file once per field, at most MAX_MEDIA_PER_CARD), or removed. The
// sides a kind goes on by default are here too. Pure.
import { MAX_MEDIA_PER_CARD, type MediaField, type MediaKind, type MediaRef } from './ref';

/**
 * Where a new file goes unless the learner says otherwise. A sound goes on the back: a deck's back
 * holds the word in the language being learnt, and a recording says that word, so hearing it on
 * the front would give the answer away. A picture goes on the front: it is the prompt the word is
 * recalled from, as in picture vocabulary decks.
 */
export const DEFAULT_FIELD: Record<MediaKind, MediaField> = { image: 'front', sound: 'back' };

export type AddResult = { ok: true; media: MediaRef[] } | { ok: false; error: string };

export function addMediaRef(media: readonly MediaRef[], ref: MediaRef): AddResult {
  if (media.some((item) => item.hash === ref.hash && item.field === ref.field)) {
    return { ok: false, error: `This ${ref.kind === 'image' ? 'picture' : 'sound'} is already on this side of the card.` };
  }
  if (media.length >= MAX_MEDIA_PER_CARD) {
    return { ok: false, error: `A card holds at most ${MAX_MEDIA_PER_CARD} pictures and sounds; remove one to add another.` };
  }
  return { ok: true, media: [...media, ref] };
}

export function removeMediaRef(media: readonly MediaRef[], ref: Pick<MediaRef, 'hash' | 'field'>): MediaRef[] {
  return media.filter((item) => !(item.hash === ref.hash && item.field === ref.field));
}

/** The card's first recording or sound that shows with the back (what record-and-compare compares with). */
export function compareSound(media: readonly MediaRef[]): MediaRef | null {
  return media.find((ref) => ref.kind === 'sound' && ref.field !== 'front') ?? media.find((ref) => ref.kind === 'sound') ?? null;
}
