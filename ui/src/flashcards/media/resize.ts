// A picture made ready to keep: its header read first (size and format refused in words before
// any decoding), then decoded with the platform's own createImageBitmap, scaled to at most
// MAX_PICTURE_SIDE on its longer side on an OffscreenCanvas (a canvas element where there is none)
// and written as WebP, or as JPEG where the browser does not write WebP (Safari): the blob's type
// says which was written. Writing it anew also drops the photo's metadata (place, camera).
import { HEADER_BYTES, pictureProblem, readImageSize } from './imageHeader';
import { MAX_PICTURE_SIDE } from './limits';

/** The size that fits within `max` on the longer side, keeping the proportions; never enlarged. */
export function fitWithin(width: number, height: number, max: number = MAX_PICTURE_SIDE): { width: number; height: number } {
  const longer = Math.max(width, height);
  if (longer <= max) return { width, height };
  const scale = max / longer;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Quality of the written picture (WebP and JPEG alike). */
export const PICTURE_QUALITY = 0.85;

export interface PreparedPicture {
  readonly bytes: ArrayBuffer;
  readonly type: 'image/webp' | 'image/jpeg';
  readonly width: number;
  readonly height: number;
  /** The browser does not write WebP: the picture was written as JPEG. */
  readonly fellBackToJpeg: boolean;
}

/** A picture that cannot be added, with the reason in words. */
export class PictureError extends Error {
  override name = 'PictureError';
}

type Surface = { draw: (bitmap: ImageBitmap, background: string | null) => void; encode: (type: string) => Promise<Blob | null> };

function surface(width: number, height: number): Surface {
  if (typeof OffscreenCanvas !== 'undefined') {
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new PictureError('This browser cannot draw pictures (no 2D canvas).');
    return {
      draw(bitmap, background) {
        paint(context, bitmap, width, height, background);
      },
      encode: (type) => canvas.convertToBlob({ type, quality: PICTURE_QUALITY }).catch(() => null),
    };
  }
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) throw new PictureError('This browser cannot draw pictures (no 2D canvas).');
  return {
    draw(bitmap, background) {
      paint(context, bitmap, width, height, background);
    },
    encode: (type) => new Promise((resolve) => canvas.toBlob(resolve, type, PICTURE_QUALITY)),
  };
}

function paint(
  context: OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D,
  bitmap: ImageBitmap,
  width: number,
  height: number,
  background: string | null,
) {
  context.clearRect(0, 0, width, height);
  if (background) {
    context.fillStyle = background;
    context.fillRect(0, 0, width, height);
  }
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, 0, 0, width, height);
}

/** Reads, checks, scales and writes a chosen picture; throws PictureError in words. */
export async function preparePicture(file: Blob): Promise<PreparedPicture> {
  const head = new Uint8Array(await file.slice(0, HEADER_BYTES).arrayBuffer());
  const problem = pictureProblem(file.size, readImageSize(head));
  if (problem) throw new PictureError(problem);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new PictureError('This picture could not be opened: the file may be damaged, or this browser cannot read its format.');
  }
  try {
    // The decoded size counts: a photo turned by its orientation swaps width and height.
    const size = fitWithin(bitmap.width, bitmap.height);
    const target = surface(size.width, size.height);
    target.draw(bitmap, null);
    const webp = await target.encode('image/webp');
    if (webp?.type === 'image/webp') {
      return { bytes: await webp.arrayBuffer(), type: 'image/webp', ...size, fellBackToJpeg: false };
    }
    // JPEG has no transparency: a transparent picture goes on white rather than black.
    target.draw(bitmap, '#ffffff');
    const jpeg = await target.encode('image/jpeg');
    if (jpeg?.type !== 'image/jpeg') throw new PictureError('This browser could not write the picture as WebP or JPEG.');
    return { bytes: await jpeg.arrayBuffer(), type: 'image/jpeg', ...size, fellBackToJpeg: true };
  } finally {
    bitmap.close();
  }
}
