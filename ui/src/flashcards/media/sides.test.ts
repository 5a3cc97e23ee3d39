// A card's media on the faces of its practice items.
import { describe, expect, it } from 'vitest';
import type { MediaRef } from './ref';
import { faceMedia } from './sides';

const ref = (field: MediaRef['field'], kind: MediaRef['kind'] = 'image'): MediaRef => ({
  hash: field
    .padEnd(64, '0')
    .slice(0, 64)
    .replace(/[^0-9a-f]/g, 'a'),
  name: `${field}.png`,
  kind,
  field,
});
const media = [ref('front'), ref('back', 'sound'), ref('example', 'sound')];

describe('faceMedia', () => {
  it('puts the front field’s files with the front text and the others with the back', () => {
    expect(faceMedia(media, { reverse: false }, 'prompt').map((r) => r.field)).toEqual(['front']);
    expect(faceMedia(media, { reverse: false }, 'answer').map((r) => r.field)).toEqual(['back', 'example']);
  });
  it('turns them round for a reverse item', () => {
    expect(faceMedia(media, { reverse: true }, 'prompt').map((r) => r.field)).toEqual(['back', 'example']);
    expect(faceMedia(media, { reverse: true }, 'answer').map((r) => r.field)).toEqual(['front']);
  });
  it('shows a cloze text’s files on both faces', () => {
    expect(faceMedia(media, { reverse: false, cloze: 1 }, 'prompt').map((r) => r.field)).toEqual(['front']);
    expect(faceMedia(media, { reverse: false, cloze: 1 }, 'answer').map((r) => r.field)).toEqual(['front', 'back', 'example']);
  });
});
