// The media files an Anki package's cards use, read within the import's budgets: only the files a
// card refers to are unzipped (a count and a byte budget for the import, one for each file), each
// zstd frame of the current format decompressed within its declared size, its size and SHA-1
// checked against the package's list, a picture's format and size read from its header before
// anything decodes it, and every file named by its SHA-256 (the media store's key). What is not
// kept is said per file, in words. Runs in the import Worker (crypto.subtle, no DOM).
import { unzipSync } from 'fflate';
import { sha256Hex } from '../../media/store';
import { pictureInfo, pictureProblem, soundType } from '../../media/imageSize';
import type { MediaKind } from '../../media/ref';
import { formatBytes } from '../../../lib/units';
import { BUDGETS, megabytes, type Budgets } from './budgets';
import type { MediaEntry } from './collection';
import { decompressInto, decompressWithin, ZstdBudgetError } from './zstd';

/** A file kept for the import, its bytes ready for the media store. */
export interface ImportedMediaFile {
  name: string;
  hash: string;
  type: string;
  kind: MediaKind;
  bytes: ArrayBuffer;
}

/** A file a card refers to that the import does not keep, and why (after its name, in words). */
export interface MediaProblem {
  name: string;
  reason: string;
}

export interface MediaReading {
  /** By the name the cards use. */
  files: Map<string, ImportedMediaFile>;
  problems: MediaProblem[];
}

/** The window a file's zstd frame may ask the decoder for, whatever the file's own size (zstd's default for small levels is up to 8 MiB). */
const WINDOW = 8 * 1024 * 1024;

const tooLarge = (size: number, budgets: Budgets) => `is ${formatBytes(size)}; files up to ${formatBytes(budgets.mediaFileBytes)} are kept`;

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, index) => byte === b[index]);

async function sha1(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-1', bytes as Uint8Array<ArrayBuffer>));
}

/**
 * The files `wanted` (name → how the cards show it) read from the package `zip`, whose media list
 * is `list`; `compressed` when each entry is a zstd frame (the current format).
 */
export async function readMedia(
  zip: Uint8Array,
  list: readonly MediaEntry[],
  wanted: ReadonlyMap<string, MediaKind>,
  compressed: boolean,
  budgets: Budgets = BUDGETS,
): Promise<MediaReading> {
  const files = new Map<string, ImportedMediaFile>();
  const problems: MediaProblem[] = [];
  const byName = new Map<string, MediaEntry>();
  for (const entry of list) if (!byName.has(entry.name)) byName.set(entry.name, entry);
  const entries = new Map<string, { entry: MediaEntry; kind: MediaKind }>();
  for (const [name, kind] of wanted) {
    const entry = byName.get(name);
    if (!entry) problems.push({ name, reason: 'is not in the package' });
    else if (kind === 'sound' && soundType(name) === null) problems.push({ name, reason: 'is not a sound format this app plays' });
    else if (entry.size !== null && entry.size > budgets.mediaFileBytes) {
      problems.push({ name, reason: tooLarge(entry.size, budgets) });
    } else if (entries.size >= budgets.mediaFiles) {
      problems.push({ name, reason: `is past the ${budgets.mediaFiles.toLocaleString('en')} files one import keeps` });
    } else entries.set(entry.entry, { entry, kind });
  }
  if (entries.size === 0) return { files, problems };

  // Only the entries wanted are unzipped, within the import's budget in all.
  let unzipped = 0;
  const overBudget = new Set<string>();
  const oversized = new Map<string, number>();
  // A zstd frame is a few bytes larger than its content at most.
  const slack = compressed ? 1024 : 0;
  let raw: Record<string, Uint8Array>;
  try {
    raw = unzipSync(zip, {
      filter: (file) => {
        const wantedEntry = entries.get(file.name);
        if (!wantedEntry) return false;
        if (file.originalSize > budgets.mediaFileBytes + slack) {
          oversized.set(file.name, file.originalSize);
          return false;
        }
        if (unzipped + file.originalSize > budgets.mediaBytes + slack) {
          overBudget.add(file.name);
          return false;
        }
        unzipped += file.originalSize;
        return true;
      },
    });
  } catch {
    for (const { entry } of entries.values()) problems.push({ name: entry.name, reason: 'could not be unzipped (the archive is damaged)' });
    return { files, problems };
  }

  let total = 0;
  for (const [key, { entry, kind }] of entries) {
    const { name } = entry;
    const stored = raw[key];
    const size = oversized.get(key);
    if (size !== undefined) {
      problems.push({ name, reason: tooLarge(size, budgets) });
      continue;
    }
    if (overBudget.has(key)) {
      problems.push({ name, reason: `is past the ${megabytes(budgets.mediaBytes)} of media one import keeps` });
      continue;
    }
    if (!stored) {
      problems.push({ name, reason: 'is in the package’s list but not in the package' });
      continue;
    }
    let bytes: Uint8Array;
    try {
      // Size and SHA-1 listed: straight into a buffer of that size (no window per file); the
      // SHA-1 below tells a frame that did not fill it exactly.
      bytes = !compressed
        ? stored
        : entry.size !== null && entry.sha1 !== null
          ? decompressInto(stored, entry.size)
          : decompressWithin(stored, Math.min(entry.size ?? budgets.mediaFileBytes, budgets.mediaFileBytes), Math.max(budgets.mediaFileBytes, WINDOW));
    } catch (error) {
      problems.push({
        name,
        reason: error instanceof ZstdBudgetError ? 'is larger than the package’s list says' : 'is damaged (it could not be decompressed)',
      });
      continue;
    }
    if (bytes.length > budgets.mediaFileBytes) {
      problems.push({ name, reason: tooLarge(bytes.length, budgets) });
      continue;
    }
    if (entry.size !== null && bytes.length !== entry.size) {
      problems.push({ name, reason: 'does not have the size the package’s list says (it is damaged)' });
      continue;
    }
    if (entry.sha1 && !sameBytes(await sha1(bytes), entry.sha1)) {
      problems.push({ name, reason: 'does not match the package’s checksum (it is damaged)' });
      continue;
    }
    if (total + bytes.length > budgets.mediaBytes) {
      problems.push({ name, reason: `is past the ${megabytes(budgets.mediaBytes)} of media one import keeps` });
      continue;
    }
    let type: string;
    if (kind === 'image') {
      const info = pictureInfo(bytes);
      if (!info) {
        problems.push({ name, reason: 'is not a picture format browsers show (PNG, JPEG, GIF, WebP or SVG)' });
        continue;
      }
      const problem = pictureProblem(info);
      if (problem) {
        problems.push({ name, reason: problem });
        continue;
      }
      type = info.type;
    } else type = soundType(name) ?? 'application/octet-stream';
    total += bytes.length;
    // A file of its own (not a view into the unzipped archive), so it can be handed over whole.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : bytes.slice().buffer;
    files.set(name, { name, hash: await sha256Hex(own), type, kind, bytes: own });
  }
  problems.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { files, problems };
}
