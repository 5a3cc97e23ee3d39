// The owner's picture, made in the browser before it is sent: the centred square of the image as
// its camera turned it, at most PICTURE_SIDE pixels a side (never enlarged), as WebP where the
// browser writes WebP, else JPEG on white, at falling qualities until it fits the server's cap.
// The maths is pure (and tested); `preparePicture` draws with createImageBitmap and an
// OffscreenCanvas (a <canvas> where there is none).

/** The side of the square sent to the server, in pixels. */
export const PICTURE_SIDE = 512;

/** The qualities tried in turn until the picture fits. */
export const QUALITIES = [0.86, 0.72, 0.55, 0.4] as const;

export interface Crop {
  /** Where the square starts in the image. */
  sx: number;
  sy: number;
  /** Its side in the image. */
  side: number;
}

/** The largest centred square of a `width`×`height` image. */
export function squareCrop(width: number, height: number): Crop {
  const side = Math.max(1, Math.min(Math.floor(width), Math.floor(height)));
  return { sx: Math.floor((width - side) / 2), sy: Math.floor((height - side) / 2), side };
}

/** The side the square is drawn at: its own, at most `max` (a small picture is not enlarged). */
export function outputSide(side: number, max: number = PICTURE_SIDE): number {
  return Math.max(1, Math.min(Math.floor(side), max));
}

/** The type to keep: WebP when the browser wrote it (a browser that cannot gives PNG), else JPEG. */
export function keptType(written: string): 'image/webp' | 'image/jpeg' {
  return written === 'image/webp' ? 'image/webp' : 'image/jpeg';
}

export class PictureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PictureError';
  }
}

export const UNREADABLE = 'This file could not be read as a picture. Choose a photo or an image file (PNG, JPEG, WebP or GIF).';

type Surface = { canvas: OffscreenCanvas | HTMLCanvasElement; context: OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D };

function surface(side: number): Surface {
  if (typeof OffscreenCanvas !== 'undefined') {
    const canvas = new OffscreenCanvas(side, side);
    const context = canvas.getContext('2d');
    if (context) return { canvas, context };
  }
  const canvas = document.createElement('canvas');
  canvas.width = side;
  canvas.height = side;
  const context = canvas.getContext('2d');
  if (!context) throw new PictureError(UNREADABLE);
  return { canvas, context };
}

function encode(canvas: Surface['canvas'], type: string, quality: number): Promise<Blob | null> {
  if ('convertToBlob' in canvas) return canvas.convertToBlob({ type, quality });
  return new Promise((resolve) => canvas.toBlob(resolve, type, quality));
}

/** The square picture to send, at most `maxBytes`. */
export async function preparePicture(file: Blob, maxBytes: number): Promise<Blob> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    throw new PictureError(UNREADABLE);
  }
  try {
    const crop = squareCrop(bitmap.width, bitmap.height);
    const side = outputSide(crop.side);
    const draw = (opaque: boolean) => {
      const drawn = surface(side);
      drawn.context.imageSmoothingQuality = 'high';
      if (opaque) {
        drawn.context.fillStyle = '#ffffff';
        drawn.context.fillRect(0, 0, side, side);
      }
      drawn.context.drawImage(bitmap, crop.sx, crop.sy, crop.side, crop.side, 0, 0, side, side);
      return drawn.canvas;
    };
    let canvas = draw(false);
    let type: 'image/webp' | 'image/jpeg' | null = null;
    for (const quality of QUALITIES) {
      const blob = await encode(canvas, type ?? 'image/webp', quality);
      if (!blob) break;
      if (type === null) {
        type = keptType(blob.type);
        // No WebP here: JPEG has no transparency, so the picture is drawn again on white.
        if (type === 'image/jpeg') {
          canvas = draw(true);
          const jpeg = await encode(canvas, type, quality);
          if (jpeg && jpeg.size <= maxBytes) return jpeg;
          continue;
        }
      }
      if (blob.size <= maxBytes) return blob;
    }
    throw new PictureError('This picture stays too large even at a low quality. Choose another one.');
  } finally {
    bitmap.close();
  }
}
