// Which of a card's pictures and sounds show on which face of a practice item: the front field's
// on the face showing the front text, every other field's on the face showing the back (so a
// reverse item shows them the other way round); a cloze card shows its text on both faces, and
// the text's files with it. Pure.
import type { MediaRef } from './ref';

export type Face = 'prompt' | 'answer';

export function faceMedia(media: readonly MediaRef[], item: { reverse: boolean; cloze?: number | undefined }, face: Face): MediaRef[] {
  if (item.cloze !== undefined) return media.filter((ref) => ref.field === 'front' || face === 'answer');
  const frontShown = (face === 'prompt') !== item.reverse;
  return media.filter((ref) => (ref.field === 'front') === frontShown);
}

/** Whether any face of the item has a sound (the play controls' row is then kept for the whole card). */
export const hasSound = (media: readonly MediaRef[]) => media.some((ref) => ref.kind === 'sound');
