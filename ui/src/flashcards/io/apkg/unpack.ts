// Opens an Anki package (.apkg or .colpkg): a zip holding the collection database (zstd-compressed
// collection.anki21b in Anki 2.1.50 and later, beside a stub collection.anki2; plain
// collection.anki21 or collection.anki2 in the legacy format), a "meta" version record and a
// media list. Only these entries are unzipped here; the media files the cards use are read
// afterwards by mediaFiles.ts, each within its budgets.
import { unzipSync } from 'fflate';
import { checkCollectionSize, checkFileSize, collectionTooLarge, PackageError, BUDGETS, type Budgets } from './budgets';
import { mediaEntries, type MediaEntry } from './collection';
import { numberField, readMessage } from './protobuf';
import { decompressWithin, ZstdBudgetError } from './zstd';

export interface UnpackedPackage {
  /** The SQLite database bytes. */
  database: Uint8Array;
  /** Which entry held it. */
  entry: 'collection.anki21b' | 'collection.anki21' | 'collection.anki2';
  /** The media files the package carries, as its media list names them. */
  media: MediaEntry[];
  /** Whether each media entry is a zstd frame (the current format) rather than the raw file. */
  compressedMedia: boolean;
}

/** The package versions of the "meta" entry this reader knows (1 and 2 legacy, 3 current). */
export const MAX_PACKAGE_VERSION = 3;

const WANTED = new Set(['meta', 'media', 'collection.anki21b', 'collection.anki21', 'collection.anki2']);

const isZip = (bytes: Uint8Array) => bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

export function unpack(bytes: Uint8Array, budgets: Budgets = BUDGETS): UnpackedPackage {
  checkFileSize(bytes.length, budgets);
  if (!isZip(bytes)) throw new PackageError('This is not an Anki package: an .apkg or .colpkg file is a zip archive, and this file is not one.');
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        if (!WANTED.has(file.name)) return false;
        checkCollectionSize(file.originalSize, budgets);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof PackageError) throw error;
    throw new PackageError('The zip archive is damaged and cannot be opened.');
  }
  const meta = files.meta;
  const version = meta ? numberField(readMessage(meta), 1, 0) : 0;
  if (version > MAX_PACKAGE_VERSION) {
    throw new PackageError('The package was made by a newer Anki than this import knows; export it again with "Support older Anki versions" ticked.');
  }
  const current = files['collection.anki21b'];
  let database: Uint8Array;
  let entry: UnpackedPackage['entry'];
  if (current) {
    try {
      database = decompressWithin(current, budgets.collectionBytes);
    } catch (error) {
      if (error instanceof ZstdBudgetError) throw collectionTooLarge(budgets);
      throw new PackageError('The collection inside the package is damaged (it could not be decompressed).');
    }
    entry = 'collection.anki21b';
  } else if (files['collection.anki21']) {
    database = files['collection.anki21'];
    entry = 'collection.anki21';
  } else if (files['collection.anki2'] && version < MAX_PACKAGE_VERSION) {
    database = files['collection.anki2'];
    entry = 'collection.anki2';
  } else {
    throw new PackageError('The zip holds no Anki collection: this is not an .apkg or .colpkg file.');
  }
  checkCollectionSize(database.length, budgets);
  let media: MediaEntry[] = [];
  if (files.media) {
    try {
      media = mediaEntries(
        files.media.length > 0 && files.media[0] === 0x28 ? decompressWithin(files.media, budgets.collectionBytes) : files.media,
        current !== undefined,
      );
    } catch {
      media = [];
    }
  }
  return { database, entry, media, compressedMedia: current !== undefined };
}
