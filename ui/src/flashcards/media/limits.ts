// The limits the learner's own pictures and recordings keep (README's Budgets): each checked before
// any work is done, and refused in words. Pure.

/** A chosen, pasted or photographed picture, as the file is (a phone photo is 3 to 12 MB). */
export const MAX_PICTURE_FILE_BYTES = 30 * 1024 * 1024;
/** The longer side of a picture as it is kept: it is resized in the browser to at most this. */
export const MAX_PICTURE_SIDE = 1024;
/** The longer side of a picture as chosen (read from its header before it is decoded). */
export const MAX_SOURCE_SIDE = 16_384;
/** Pixels of a picture as chosen: decoding takes 4 bytes each (50 megapixels: 200 MB). */
export const MAX_SOURCE_PIXELS = 50_000_000;
/** A sound file added to a card (a word or a sentence: a few hundred kB). */
export const MAX_SOUND_FILE_BYTES = 20 * 1024 * 1024;
/** A recording of the learner's voice stops by itself after this long. */
export const MAX_RECORDING_MS = 60_000;

/** Bytes as a learner reads them ("25 MB", "900 kB"). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} kB`;
  return `${bytes} bytes`;
}

/** Milliseconds as a clock ("0:07", "1:00"). */
export function formatClock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
