import { describe, expect, it } from 'vitest';
import { keptType, outputSide, PICTURE_SIDE, squareCrop } from './picture';

describe('squareCrop', () => {
  it('takes the centred square of a landscape or portrait picture', () => {
    expect(squareCrop(4032, 3024)).toEqual({ sx: 504, sy: 0, side: 3024 });
    expect(squareCrop(1080, 1920)).toEqual({ sx: 0, sy: 420, side: 1080 });
    expect(squareCrop(640, 640)).toEqual({ sx: 0, sy: 0, side: 640 });
  });

  it('stays inside odd sizes and never gives an empty square', () => {
    const crop = squareCrop(101, 50);
    expect(crop.sx + crop.side).toBeLessThanOrEqual(101);
    expect(crop).toEqual({ sx: 25, sy: 0, side: 50 });
    expect(squareCrop(0, 0).side).toBe(1);
  });
});

describe('outputSide', () => {
  it('shrinks to the picture side, never enlarges', () => {
    expect(outputSide(3024)).toBe(PICTURE_SIDE);
    expect(PICTURE_SIDE).toBe(512);
    expect(outputSide(300)).toBe(300);
    expect(outputSide(300.7, 256)).toBe(256);
  });
});

describe('keptType', () => {
  it('keeps WebP when the browser wrote it, else JPEG', () => {
    expect(keptType('image/webp')).toBe('image/webp');
    expect(keptType('image/png')).toBe('image/jpeg');
    expect(keptType('')).toBe('image/jpeg');
  });
});
