import { describe, expect, it } from 'vitest';
import { addMediaRef, compareSound, DEFAULT_FIELD, removeMediaRef } from './cardMedia';
import { formatBytes, formatClock } from './limits';
import { chooseRecorderType, extensionFor, mediaName } from './recorder';
import type { MediaRef } from './ref';

describe('the recording format', () => {
  it('takes the first type the browser records, in the order Opus/WebM, MP4, Ogg', () => {
    expect(chooseRecorderType(() => true)).toBe('audio/webm;codecs=opus');
    // Safari records MP4 only.
    expect(chooseRecorderType((type) => type === 'audio/mp4')).toBe('audio/mp4');
    expect(chooseRecorderType((type) => type === 'audio/ogg' || type === 'audio/mp4')).toBe('audio/mp4');
    expect(chooseRecorderType((type) => type === 'audio/ogg')).toBe('audio/ogg');
    // None known (or a browser that throws): the browser's own choice.
    expect(chooseRecorderType(() => false)).toBe('');
    expect(
      chooseRecorderType(() => {
        throw new Error('no');
      }),
    ).toBe('');
  });

  it('names files by their kept format', () => {
    expect(extensionFor('audio/webm;codecs=opus')).toBe('webm');
    expect(extensionFor('audio/mp4')).toBe('m4a');
    expect(extensionFor('image/jpeg')).toBe('jpg');
    const hash = 'ab'.repeat(32);
    expect(mediaName(hash, 'audio/webm;codecs=opus', 'recording')).toBe('recording-ababababab.webm');
    expect(mediaName(hash, 'image/webp', 'picture', 'Hund im Schnee.JPG')).toBe('Hund im Schnee.webp');
    expect(mediaName(hash, 'image/webp', 'picture', 'a/b:c?.png')).toBe('a b c.webp');
    expect(mediaName(hash, 'image/webp', 'picture', '.png')).toBe('picture-ababababab.webp');
  });

  it('shows clocks and sizes in words', () => {
    expect(formatClock(0)).toBe('0:00');
    expect(formatClock(7_900)).toBe('0:07');
    expect(formatClock(60_000)).toBe('1:00');
    expect(formatBytes(20 * 1024 * 1024)).toBe('20 MB');
    expect(formatBytes(2048)).toBe('2 kB');
  });
});

describe("a card's media list", () => {
  const ref = (hash: string, field: MediaRef['field'], kind: MediaRef['kind'] = 'sound'): MediaRef => ({
    hash: hash.repeat(64),
    name: `${hash}.webm`,
    kind,
    field,
  });

  it('adds each file once per field, at most 16, and removes by file and field', () => {
    const one = addMediaRef([], ref('a', 'back'));
    expect(one).toEqual({ ok: true, media: [ref('a', 'back')] });
    expect(addMediaRef([ref('a', 'back')], ref('a', 'back'))).toEqual({ ok: false, error: 'This sound is already on this side of the card.' });
    expect(addMediaRef([ref('a', 'back')], ref('a', 'front'))).toMatchObject({ ok: true });
    const full = Array.from({ length: 16 }, (_, i) => ref(i.toString(16), 'back'));
    expect(addMediaRef(full, ref('f', 'front'))).toEqual({ ok: false, error: 'A card holds at most 16 pictures and sounds; remove one to add another.' });
    expect(removeMediaRef([ref('a', 'back'), ref('a', 'front')], { hash: 'a'.repeat(64), field: 'back' })).toEqual([ref('a', 'front')]);
  });

  it('puts sounds on the back and pictures on the front by default, and compares with the back sound', () => {
    expect(DEFAULT_FIELD).toEqual({ image: 'front', sound: 'back' });
    expect(compareSound([ref('a', 'front'), ref('b', 'back')])).toEqual(ref('b', 'back'));
    expect(compareSound([ref('a', 'front')])).toEqual(ref('a', 'front'));
    expect(compareSound([ref('c', 'front', 'image')])).toBeNull();
  });
});
