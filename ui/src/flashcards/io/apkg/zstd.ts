// Zstandard decompression inside a budget: Anki's current packages hold the collection as one
// zstd frame. The frame's header says how large a window (or, for a single-segment frame, how
// large the whole output) it needs, and a decoder allocates that before reading any data; the
// output itself could be far larger than the file. Both are checked here against the budget, the
// header before anything is allocated and the output block by block, so a crafted package fails
// with a reason instead of taking the tab's memory. Pure.
import { Decompress, decompress } from 'fzstd';

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
/** Bytes pushed to the decoder at a time. */
const STEP = 1 << 16;

/** Why the data was refused: larger than `limit` once decompressed, or not zstd the decoder reads. */
export class ZstdBudgetError extends Error {
  override name = 'ZstdBudgetError';
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes once decompressed`);
  }
}

const readLittleEndian = (bytes: Uint8Array, at: number, length: number) => {
  let value = 0;
  for (let i = length - 1; i >= 0; i -= 1) value = value * 256 + (bytes[at + i] ?? 0);
  return value;
};

/**
 * What the first frame's header asks the decoder to allocate (its window, or for a
 * single-segment frame its declared content size); null when the bytes are no zstd frame.
 */
export function frameAllocation(bytes: Uint8Array): number | null {
  if (bytes.length < 6 || MAGIC.some((b, i) => bytes[i] !== b)) return null;
  const flags = bytes[4] ?? 0;
  const singleSegment = (flags >> 5) & 1;
  const sizeFlag = flags >> 6;
  const dictionaryBytes = [0, 1, 2, 4][flags & 3] ?? 0;
  if (!singleSegment) {
    const descriptor = bytes[5] ?? 0;
    const base = 2 ** (10 + (descriptor >> 3));
    return base + (base / 8) * (descriptor & 7);
  }
  const sizeBytes = sizeFlag ? 2 ** sizeFlag : 1;
  const at = 5 + dictionaryBytes;
  if (bytes.length < at + sizeBytes) return null;
  return readLittleEndian(bytes, at, sizeBytes) + (sizeFlag === 1 ? 256 : 0);
}

/**
 * `input` decompressed, refused with ZstdBudgetError as soon as it would pass `limit` bytes, or
 * when its header asks for more than `allocationLimit` (a small file's frame may declare a window
 * larger than the file itself, so a file's exact size is its output limit, not its allocation's).
 */
export function decompressWithin(input: Uint8Array, limit: number, allocationLimit = limit): Uint8Array {
  const allocation = frameAllocation(input);
  if (allocation !== null && allocation > Math.max(limit, allocationLimit)) throw new ZstdBudgetError(limit);
  const blocks: Uint8Array[] = [];
  let total = 0;
  const stream = new Decompress((block) => {
    total += block.length;
    if (total > limit) throw new ZstdBudgetError(limit);
    blocks.push(block);
  });
  if (input.length === 0) stream.push(input, true);
  for (let at = 0; at < input.length; at += STEP) {
    const end = Math.min(at + STEP, input.length);
    stream.push(input.subarray(at, end), end === input.length);
  }
  const output = new Uint8Array(total);
  let at = 0;
  for (const block of blocks) {
    output.set(block, at);
    at += block.length;
  }
  return output;
}

/**
 * `input` decompressed into exactly `size` bytes, for a file whose size is known beforehand (the
 * current package format lists it): the decoder writes into that buffer and allocates no window,
 * so memory is the file's own size whatever the frame's header asks. A frame that holds more or
 * fewer bytes does not come out whole: the caller checks the bytes' SHA-1 (the package lists it).
 */
export function decompressInto(input: Uint8Array, size: number): Uint8Array {
  if (frameAllocation(input) === null) throw new Error('not a zstd frame');
  const output = new Uint8Array(size);
  decompress(input, output);
  return output;
}
