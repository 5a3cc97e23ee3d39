import { describe, expect, it } from 'vitest';
import { pictureProblem, readImageSize } from './imageHeader';
import { MAX_PICTURE_FILE_BYTES } from './limits';
import { fitWithin } from './resize';

const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >>> 8) & 255];
const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));

const png = (w: number, h: number) =>
  new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, ...ascii('IHDR'), ...be32(w), ...be32(h), 8, 6, 0, 0, 0]);

describe('picture dimensions from the header', () => {
  it('reads PNG, GIF, BMP and JPEG (past its metadata segments)', () => {
    expect(readImageSize(png(640, 480))).toEqual({ width: 640, height: 480, format: 'png' });
    expect(readImageSize(new Uint8Array([...ascii('GIF89a'), ...le16(300), ...le16(200), 0, 0]))).toEqual({ width: 300, height: 200, format: 'gif' });
    const bmp = new Uint8Array(30);
    bmp.set(ascii('BM'));
    bmp.set([0x20, 0x03, 0, 0], 18); // 800
    bmp.set([0x38, 0xff, 0xff, 0xff], 22); // -200: a top-down picture
    expect(readImageSize(bmp)).toEqual({ width: 800, height: 200, format: 'bmp' });
    const app1 = [0xff, 0xe1, 0, 8, 1, 2, 3, 4, 5, 6];
    const sof2 = [0xff, 0xc2, 0, 17, 8, ...[0x0b, 0xb8], ...[0x0f, 0xa0], 3];
    const jpeg = new Uint8Array([0xff, 0xd8, ...app1, 0xff, 0xc4, 0, 4, 0, 0, ...sof2, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(readImageSize(jpeg)).toEqual({ width: 4000, height: 3000, format: 'jpeg' });
  });

  it('reads the three kinds of WebP', () => {
    const riff = (chunk: string, body: number[]) =>
      new Uint8Array([...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEBP'), ...ascii(chunk), 0, 0, 0, 0, ...body, ...new Array<number>(20).fill(0)]);
    // VP8X: canvas width-1 and height-1 as 24-bit numbers after 4 bytes of flags.
    expect(readImageSize(riff('VP8X', [0, 0, 0, 0, ...[0xff, 0x03, 0], ...[0xff, 0x02, 0]]))).toEqual({ width: 1024, height: 768, format: 'webp' });
    // VP8L: 14 bits each of width-1 and height-1 after the 0x2f signature.
    const bits = 99 | (49 << 14);
    expect(readImageSize(riff('VP8L', [0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 255]))).toEqual({
      width: 100,
      height: 50,
      format: 'webp',
    });
    expect(readImageSize(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, ...le16(320), ...le16(240)]))).toEqual({ width: 320, height: 240, format: 'webp' });
  });

  it('reads an AVIF picture from its ispe box', () => {
    const avif = new Uint8Array([0, 0, 0, 24, ...ascii('ftypavif'), 0, 0, 0, 0, 0, 0, 0, 20, ...ascii('ispe'), 0, 0, 0, 0, ...be32(1920), ...be32(1080)]);
    expect(readImageSize(avif)).toEqual({ width: 1920, height: 1080, format: 'avif' });
  });

  it('answers null for what is not a picture or is cut short', () => {
    expect(readImageSize(new TextEncoder().encode('hello, this is text'))).toBeNull();
    expect(readImageSize(png(10, 10).slice(0, 20))).toBeNull();
    expect(readImageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]))).toBeNull();
  });
});

describe('pictures refused before decoding', () => {
  it('refuses a 20,000 × 20,000 PNG in words', () => {
    expect(pictureProblem(5000, readImageSize(png(20_000, 20_000)))).toBe(
      'This picture is 20,000 × 20,000 pixels, too large to open on this device; pictures up to 16,384 pixels on a side and 50 megapixels can be added.',
    );
    // Within each side but too many pixels.
    expect(pictureProblem(5000, { width: 16_000, height: 16_000, format: 'png' })).toMatch(/too large/);
    expect(pictureProblem(5000, { width: 4000, height: 3000, format: 'jpeg' })).toBeNull();
  });

  it('refuses a file past the byte limit, an unknown format and a zero size', () => {
    expect(pictureProblem(MAX_PICTURE_FILE_BYTES + 1, { width: 10, height: 10, format: 'png' })).toBe(
      'This picture is 30 MB; pictures up to 30 MB can be added.',
    );
    expect(pictureProblem(10, null)).toMatch(/^This file is not a picture this app can read/);
    expect(pictureProblem(10, { width: 0, height: 10, format: 'png' })).toMatch(/damaged/);
  });
});

describe('resize maths', () => {
  it('fits the longer side within 1024 px, keeping proportions, never enlarging', () => {
    expect(fitWithin(4000, 3000)).toEqual({ width: 1024, height: 768 });
    expect(fitWithin(3000, 4000)).toEqual({ width: 768, height: 1024 });
    expect(fitWithin(2048, 2048)).toEqual({ width: 1024, height: 1024 });
    expect(fitWithin(800, 600)).toEqual({ width: 800, height: 600 });
    expect(fitWithin(1024, 10)).toEqual({ width: 1024, height: 10 });
    // A very long thin picture keeps at least one pixel.
    expect(fitWithin(16_000, 3)).toEqual({ width: 1024, height: 1 });
    expect(fitWithin(1500, 1000, 300)).toEqual({ width: 300, height: 200 });
  });
});
