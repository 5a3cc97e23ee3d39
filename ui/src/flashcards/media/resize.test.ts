import { afterEach, describe, expect, it, vi } from 'vitest';
import { preparePicture } from './resize';

const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const pngHeader = (w: number, h: number) =>
  new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82, ...be32(w), ...be32(h), 8, 6, 0, 0, 0])], {
    type: 'image/png',
  });

/** A canvas that writes only the types in `writes` (Safari writes no WebP: it answers PNG). */
function fakePlatform(writes: string[], bitmap = { width: 3000, height: 2000 }) {
  const drawn: { fills: string[]; size: [number, number] }[] = [];
  const decode = vi.fn(() => Promise.resolve({ ...bitmap, close: vi.fn() }));
  class FakeCanvas {
    constructor(
      readonly width: number,
      readonly height: number,
    ) {
      drawn.push({ fills: [], size: [width, height] });
    }
    getContext() {
      const record = drawn[drawn.length - 1];
      return {
        clearRect: vi.fn(),
        fillRect: function (this: { fillStyle: string }) {
          record?.fills.push(this.fillStyle);
        },
        fillStyle: '',
        drawImage: vi.fn(),
        imageSmoothingEnabled: false,
        imageSmoothingQuality: 'low',
      };
    }
    convertToBlob({ type }: { type: string }) {
      return Promise.resolve(new Blob([new Uint8Array([1, 2, 3])], { type: writes.includes(type) ? type : 'image/png' }));
    }
  }
  vi.stubGlobal('createImageBitmap', decode);
  vi.stubGlobal('OffscreenCanvas', FakeCanvas);
  return { decode, drawn };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('preparing a picture', () => {
  it('writes WebP at most 1024 px on the longer side where the browser writes WebP', async () => {
    const { drawn } = fakePlatform(['image/webp', 'image/jpeg']);
    const picture = await preparePicture(pngHeader(3000, 2000));
    expect(picture).toMatchObject({ type: 'image/webp', width: 1024, height: 683, fellBackToJpeg: false });
    expect(drawn[0]?.size).toEqual([1024, 683]);
  });

  it('falls back to JPEG (on white) where the browser does not write WebP, and says so', async () => {
    const { drawn } = fakePlatform(['image/jpeg']);
    const picture = await preparePicture(pngHeader(3000, 2000));
    expect(picture).toMatchObject({ type: 'image/jpeg', fellBackToJpeg: true });
    expect(drawn[0]?.fills).toEqual(['#ffffff']);
  });

  it('refuses a huge picture from its header without decoding it', async () => {
    const { decode } = fakePlatform(['image/webp']);
    await expect(preparePicture(pngHeader(20_000, 20_000))).rejects.toThrow(/20,000 × 20,000 pixels, too large/);
    expect(decode).not.toHaveBeenCalled();
  });
});
