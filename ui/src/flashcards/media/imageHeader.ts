// A picture's width and height read from the first bytes of its file, before anything decodes it,
// so a picture too large to decode (a 20,000 × 20,000 PNG takes 1.6 GB) is refused in words
// instead of freezing or crashing the tab. Reads PNG, JPEG, GIF, WebP, BMP and AVIF/HEIC. Pure.
import { MAX_PICTURE_FILE_BYTES, MAX_SOURCE_PIXELS, MAX_SOURCE_SIDE, formatBytes } from './limits';

export interface ImageSize {
  readonly width: number;
  readonly height: number;
  readonly format: 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'avif';
}

/** How many leading bytes the header reader needs at most (JPEG metadata can come first). */
export const HEADER_BYTES = 512 * 1024;

const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u16le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, i: number) => u16le(b, i) | ((b[i + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, i: number) => ((u16be(b, i) << 16) >>> 0) + u16be(b, i + 2);
const i32le = (b: Uint8Array, i: number) => u16le(b, i) | (u16le(b, i + 2) << 16);
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

function jpegSize(b: Uint8Array): ImageSize | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1] ?? 0;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    // Markers without a length: TEM, RST0-7.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = u16be(b, i + 2);
    // Start of frame (baseline, progressive, lossless…), but not DHT (C4), JPG (C8) or DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: u16be(b, i + 5), width: u16be(b, i + 7), format: 'jpeg' };
    }
    if (length < 2) return null;
    i += 2 + length;
  }
  return null;
}

function webpSize(b: Uint8Array): ImageSize | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8X') return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1, format: 'webp' };
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = (b[21] ?? 0) | ((b[22] ?? 0) << 8) | ((b[23] ?? 0) << 16) | ((b[24] ?? 0) << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, format: 'webp' };
  }
  if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, format: 'webp' };
  }
  return null;
}

/** AVIF and HEIC keep the size in an 'ispe' box (the largest one is the picture's own). */
function ispeSize(b: Uint8Array): ImageSize | null {
  let best: ImageSize | null = null;
  for (let i = 4; i + 16 <= b.length; i += 1) {
    if (b[i] !== 0x69 || ascii(b, i, 4) !== 'ispe') continue;
    const width = u32be(b, i + 8);
    const height = u32be(b, i + 12);
    if (!best || width * height > best.width * best.height) best = { width, height, format: 'avif' };
  }
  return best;
}

/** The picture's size from its header, or null when the format is not one of these or is cut short. */
export function readImageSize(bytes: Uint8Array): ImageSize | null {
  const b = bytes;
  if (b.length >= 24 && u32be(b, 0) === 0x89504e47 && u32be(b, 4) === 0x0d0a1a0a && ascii(b, 12, 4) === 'IHDR') {
    return { width: u32be(b, 16), height: u32be(b, 20), format: 'png' };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpegSize(b);
  if (b.length >= 10 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) {
    return { width: u16le(b, 6), height: u16le(b, 8), format: 'gif' };
  }
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webpSize(b);
  if (b.length >= 26 && ascii(b, 0, 2) === 'BM') return { width: Math.abs(i32le(b, 18)), height: Math.abs(i32le(b, 22)), format: 'bmp' };
  if (b.length >= 12 && ascii(b, 4, 4) === 'ftyp') return ispeSize(b);
  return null;
}

/**
 * Why a chosen picture cannot be used, in words, or null when it can: its file size, a format the
 * header reader does not know, or dimensions too large to decode.
 */
export function pictureProblem(fileBytes: number, size: ImageSize | null): string | null {
  if (fileBytes > MAX_PICTURE_FILE_BYTES) {
    return `This picture is ${formatBytes(fileBytes)}; pictures up to ${formatBytes(MAX_PICTURE_FILE_BYTES)} can be added.`;
  }
  if (!size) return 'This file is not a picture this app can read: choose a PNG, JPEG, GIF, WebP, BMP or AVIF picture.';
  if (size.width === 0 || size.height === 0) return 'This picture has no width or height: the file is damaged.';
  if (size.width > MAX_SOURCE_SIDE || size.height > MAX_SOURCE_SIDE || size.width * size.height > MAX_SOURCE_PIXELS) {
    return `This picture is ${size.width.toLocaleString('en')} × ${size.height.toLocaleString('en')} pixels, too large to open on this device; pictures up to ${MAX_SOURCE_SIDE.toLocaleString('en')} pixels on a side and ${MAX_SOURCE_PIXELS / 1_000_000} megapixels can be added.`;
  }
  return null;
}
