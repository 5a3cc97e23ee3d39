// Pictures' sizes read from their headers before any decoding, and the largest kept.
import { describe, expect, it } from 'vitest';
import { pictureInfo, pictureProblem, soundType } from './imageSize';

const png = (width: number, height: number) => {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  return bytes;
};

describe('pictureInfo', () => {
  it('reads PNG, JPEG, GIF and WebP headers', () => {
    expect(pictureInfo(png(120, 80))).toEqual({ format: 'png', type: 'image/png', width: 120, height: 80 });
    // SOI, an APP0 segment of 16 bytes, then SOF0: precision 8, height 60, width 80.
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, ...new Array<number>(14).fill(0), 0xff, 0xc0, 0, 17, 8, 0, 60, 0, 80, 3]);
    expect(pictureInfo(jpeg)).toMatchObject({ format: 'jpeg', width: 80, height: 60 });
    const gif = new Uint8Array([...new TextEncoder().encode('GIF89a'), 10, 0, 20, 0, 0]);
    expect(pictureInfo(gif)).toMatchObject({ format: 'gif', width: 10, height: 20 });
    const webp = new Uint8Array(30);
    webp.set(new TextEncoder().encode('RIFF'), 0);
    webp.set(new TextEncoder().encode('WEBPVP8X'), 8);
    webp.set([99, 0, 0, 49, 0, 0], 24);
    expect(pictureInfo(webp)).toMatchObject({ format: 'webp', width: 100, height: 50 });
    expect(pictureInfo(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toMatchObject({ format: 'svg' });
    expect(pictureInfo(new TextEncoder().encode('not a picture'))).toBeNull();
  });

  it('refuses a picture too large to decode, before decoding it', () => {
    const info = pictureInfo(png(20_000, 20_000));
    expect(info && pictureProblem(info)).toBe('is 20,000 × 20,000 pixels; pictures up to 10,000 pixels a side and 40 million pixels are kept');
    const wide = pictureInfo(png(9_000, 9_000));
    expect(wide && pictureProblem(wide)).toMatch(/^is 9,000 × 9,000 pixels/);
    const fine = pictureInfo(png(4_000, 3_000));
    expect(fine && pictureProblem(fine)).toBeNull();
  });

  it('names a sound’s type by its extension', () => {
    expect(soundType('Hund bellt.MP3')).toBe('audio/mpeg');
    expect(soundType('gruß.spx')).toBe('audio/ogg; codecs=speex');
    expect(soundType('notes.txt')).toBeNull();
  });
});
