// A picture's format and size read from its first bytes, before anything decodes it: PNG (IHDR),
// JPEG (the first start-of-frame marker), GIF (the logical screen) and WebP (VP8, VP8L, VP8X). A
// picture too large to decode safely is refused on these numbers alone. Pure.

export type PictureFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'svg';

export interface PictureInfo {
  format: PictureFormat;
  /** The MIME type the store keeps. */
  type: string;
  /** Pixels; null for SVG (drawn at any size) or a header that does not say. */
  width: number | null;
  height: number | null;
}

export const PICTURE_TYPES: Record<PictureFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** The largest picture kept: each side, and the pixels in all (a decoded picture takes 4 bytes a pixel). */
export const MAX_PICTURE_SIDE = 10_000;
export const MAX_PICTURE_PIXELS = 40_000_000;

const be16 = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const be32 = (b: Uint8Array, at: number) => be16(b, at) * 65_536 + be16(b, at + 2);
const le16 = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const le24 = (b: Uint8Array, at: number) => le16(b, at) + (b[at + 2] ?? 0) * 65_536;
const ascii = (b: Uint8Array, at: number, length: number) => String.fromCharCode(...b.subarray(at, at + length));

function jpegSize(b: Uint8Array): [number, number] | null {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Markers without a length: TEM, RSTn.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = be16(b, at + 2);
    // Start of frame: every SOFn but DHT (c4), JPG (c8) and DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return [be16(b, at + 7), be16(b, at + 5)];
    }
    if (length < 2) return null;
    at += 2 + length;
  }
  return null;
}

function webpSize(b: Uint8Array): [number, number] | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8 ' && b.length >= 30) return [le16(b, 26) & 0x3fff, le16(b, 28) & 0x3fff];
  if (chunk === 'VP8L' && b.length >= 25) {
    const bits = (b[21] ?? 0) | ((b[22] ?? 0) << 8) | ((b[23] ?? 0) << 16) | ((b[24] ?? 0) << 24);
    return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
  }
  if (chunk === 'VP8X' && b.length >= 30) return [le24(b, 24) + 1, le24(b, 27) + 1];
  return null;
}

/** The picture's format and size, or null when the bytes are no picture format this app shows. */
export function pictureInfo(bytes: Uint8Array): PictureInfo | null {
  const b = bytes;
  const make = (format: PictureFormat, size: [number, number] | null): PictureInfo => ({
    format,
    type: PICTURE_TYPES[format],
    width: size?.[0] ?? null,
    height: size?.[1] ?? null,
  });
  if (b.length >= 24 && b[0] === 0x89 && ascii(b, 1, 3) === 'PNG' && ascii(b, 12, 4) === 'IHDR') return make('png', [be32(b, 16), be32(b, 20)]);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return make('jpeg', jpegSize(b));
  if (b.length >= 10 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) return make('gif', [le16(b, 6), le16(b, 8)]);
  if (b.length >= 16 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return make('webp', webpSize(b));
  const head = new TextDecoder().decode(b.subarray(0, 512)).trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return make('svg', null);
  return null;
}

/** Why the picture is refused before decoding (in words that follow its name), or null when it may be shown. */
export function pictureProblem(info: PictureInfo): string | null {
  if (info.format === 'svg') return null;
  const { width, height } = info;
  if (width === null || height === null || width === 0 || height === 0) return 'does not say its size in its header';
  const size = `${width.toLocaleString('en')} × ${height.toLocaleString('en')} pixels`;
  if (width > MAX_PICTURE_SIDE || height > MAX_PICTURE_SIDE || width * height > MAX_PICTURE_PIXELS) {
    return `is ${size}; pictures up to ${MAX_PICTURE_SIDE.toLocaleString('en')} pixels a side and ${MAX_PICTURE_PIXELS / 1_000_000} million pixels are kept`;
  }
  return null;
}

const SOUND_TYPES: Readonly<Record<string, string>> = {
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  mp4: 'audio/mp4',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg; codecs=opus',
  wav: 'audio/wav',
  flac: 'audio/flac',
  webm: 'audio/webm',
  weba: 'audio/webm',
  spx: 'audio/ogg; codecs=speex',
  amr: 'audio/amr',
  '3gp': 'audio/3gpp',
};

/** The file name's extension, lower case, without the dot ('' when none). */
export const extensionOf = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot < 0 || dot === name.length - 1 ? '' : name.slice(dot + 1).toLowerCase();
};

/** The MIME type of a sound by its name's extension (what canPlayType is asked), or null when it is no known sound format. */
export function soundType(name: string): string | null {
  return SOUND_TYPES[extensionOf(name)] ?? null;
}
