// The backup with pictures and sounds: a zip holding `decks.json` (the JSON backup exactly as
// backup.ts writes it), `media.json` (each file's hash, type and size) and each file the decks
// refer to once, as `media/<sha-256>`. Reading checks the zip within its budgets before anything
// is unpacked (file size, number of entries, unpacked bytes, compression ratio: a zip bomb is
// refused) and each file's size and SHA-256 before it is kept. The old JSON-only backup still
// imports: it goes through backup.ts unchanged. No DOM; the store is passed in.
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { isRecord } from '../../lib/schema';
import type { Deck } from '../deck';
import { isMediaHash, referencedHashes } from '../media/ref';
import { sha256Hex, type MediaStore } from '../media/store';
import type { ReviewRecord } from '../srs/reviewLog';
import { writeBackup } from './backup';
import { ImportError } from './delimited';

export const DECKS_ENTRY = 'decks.json';
export const MEDIA_ENTRY = 'media.json';
const FILE_PREFIX = 'media/';

export const BACKUP_BUDGETS = {
  /** The backup file as chosen. */
  zipBytes: 512 * 1024 * 1024,
  /** Entries in the zip (the decks, the list, and the files). */
  entries: 20_002,
  /** All entries unpacked. */
  unpackedBytes: 768 * 1024 * 1024,
  /** One media file unpacked. */
  fileBytes: 64 * 1024 * 1024,
  /** The decks' JSON unpacked. */
  decksBytes: 256 * 1024 * 1024,
  /** Unpacked bytes per packed byte beyond which an entry is a zip bomb (JSON packs about 10 to 1). */
  ratio: 100,
} as const;

export type BackupBudgets = { readonly [K in keyof typeof BACKUP_BUDGETS]: number };

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** True when the bytes start like a zip archive. */
export const isZip = (bytes: Uint8Array) => bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

export interface MediaManifestEntry {
  hash: string;
  type: string;
  size: number;
}

export interface WrittenBackup {
  zip: Uint8Array;
  /** Files the decks refer to that this device does not hold (left out of the zip). */
  missing: number;
}

/** The zip of the decks (with their review logs) and every file they refer to, each once. */
export async function writeBackupZip(
  decks: readonly Deck[],
  now: Date,
  reviews: Readonly<Record<string, ReviewRecord>>,
  store: Pick<MediaStore, 'get'>,
): Promise<WrittenBackup> {
  const entries: Zippable = { [DECKS_ENTRY]: [strToU8(writeBackup(decks, now, reviews)), { level: 6 }] };
  const manifest: MediaManifestEntry[] = [];
  let missing = 0;
  for (const hash of [...referencedHashes(decks.flatMap((deck) => deck.cards))].sort()) {
    const file = await store.get(hash);
    if (!file) {
      missing += 1;
      continue;
    }
    manifest.push({ hash, type: file.type, size: file.size });
    // Pictures and sounds are compressed already: stored as they are, they unpack at no cost.
    entries[`${FILE_PREFIX}${hash}`] = [new Uint8Array(file.bytes), { level: 0 }];
  }
  entries[MEDIA_ENTRY] = [strToU8(`${JSON.stringify({ version: 1, files: manifest })}\n`), { level: 6 }];
  return { zip: zipSync(entries, { mtime: now }), missing };
}

export interface BackupFile {
  hash: string;
  type: string;
  bytes: Uint8Array;
}

export interface UnpackedBackup {
  /** The decks' JSON, read as an old backup is (backup.ts). */
  text: string;
  /** The files whose size matches the list, their hashes not yet checked. */
  unchecked: BackupFile[];
  /** Files left out, in words. */
  problems: string[];
}

export interface ReadBackupZip {
  text: string;
  /** The files whose size and hash are right, by hash. */
  files: Map<string, BackupFile>;
  problems: string[];
}

function readManifest(bytes: Uint8Array | undefined): Map<string, MediaManifestEntry> {
  const manifest = new Map<string, MediaManifestEntry>();
  if (!bytes) return manifest;
  let value: unknown;
  try {
    value = JSON.parse(strFromU8(bytes)) as unknown;
  } catch {
    throw new ImportError('the list of pictures and sounds in this backup (media.json) is not valid JSON');
  }
  if (!isRecord(value) || !Array.isArray(value.files)) throw new ImportError('the list of pictures and sounds in this backup (media.json) has no files');
  for (const item of value.files) {
    if (!isRecord(item) || !isMediaHash(item.hash) || typeof item.type !== 'string' || typeof item.size !== 'number') continue;
    manifest.set(item.hash, { hash: item.hash, type: item.type.slice(0, 100), size: item.size });
  }
  return manifest;
}

/** Opens a backup zip within its budgets; throws ImportError in words. */
export function unpackBackupZip(bytes: Uint8Array, budgets: BackupBudgets = BACKUP_BUDGETS): UnpackedBackup {
  if (bytes.length > budgets.zipBytes) {
    throw new ImportError(`the backup is ${megabytes(bytes.length)}; backups up to ${megabytes(budgets.zipBytes)} can be imported`);
  }
  let entries = 0;
  let unpacked = 0;
  let unzipped: Record<string, Uint8Array>;
  try {
    unzipped = unzipSync(bytes, {
      filter(file) {
        const wanted =
          file.name === DECKS_ENTRY || file.name === MEDIA_ENTRY || (file.name.startsWith(FILE_PREFIX) && isMediaHash(file.name.slice(FILE_PREFIX.length)));
        if (!wanted) return false;
        entries += 1;
        if (entries > budgets.entries)
          throw new ImportError(`the backup holds more than ${(budgets.entries - 2).toLocaleString('en')} files; it cannot be imported`);
        const limit = file.name === DECKS_ENTRY || file.name === MEDIA_ENTRY ? budgets.decksBytes : budgets.fileBytes;
        if (file.originalSize > limit)
          throw new ImportError(`${file.name} in the backup is ${megabytes(file.originalSize)} unpacked; up to ${megabytes(limit)} can be imported`);
        if (file.originalSize > 1024 * 1024 && file.originalSize > file.size * budgets.ratio) {
          throw new ImportError(
            `${file.name} in the backup unpacks to more than ${budgets.ratio} times its packed size; the file is not a backup this app wrote`,
          );
        }
        unpacked += file.originalSize;
        if (unpacked > budgets.unpackedBytes)
          throw new ImportError(`the backup unpacks to more than ${megabytes(budgets.unpackedBytes)}; it cannot be imported`);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError('the zip archive is damaged and cannot be opened');
  }
  const decks = unzipped[DECKS_ENTRY];
  if (!decks) throw new ImportError('this zip is not a Hearth backup: it holds no decks.json');
  const manifest = readManifest(unzipped[MEDIA_ENTRY]);
  return { text: strFromU8(decks), ...pending(unzipped, manifest) };
}

/** The files as unpacked, still to be checked against their hashes (checkFiles). */
function pending(unzipped: Record<string, Uint8Array>, manifest: Map<string, MediaManifestEntry>): Omit<UnpackedBackup, 'text'> {
  const unchecked: BackupFile[] = [];
  const problems: string[] = [];
  for (const [name, bytes] of Object.entries(unzipped)) {
    if (!name.startsWith(FILE_PREFIX)) continue;
    const hash = name.slice(FILE_PREFIX.length);
    const entry = manifest.get(hash);
    if (!entry) problems.push(`the file ${hash.slice(0, 12)}… is not in the backup's list; it was left out`);
    else if (entry.size !== bytes.length)
      problems.push(`the file ${hash.slice(0, 12)}… has ${bytes.length} bytes, not the ${entry.size} listed; it was left out`);
    else unchecked.push({ hash, type: entry.type, bytes });
  }
  return { unchecked, problems };
}

/**
 * The backup zip read and its files checked: each file's SHA-256 must be the name it is stored
 * under, or it is left out (and said).
 */
export async function openBackupZip(bytes: Uint8Array, budgets: BackupBudgets = BACKUP_BUDGETS): Promise<ReadBackupZip> {
  const read = unpackBackupZip(bytes, budgets);
  const files = new Map<string, BackupFile>();
  const problems = [...read.problems];
  for (const file of read.unchecked) {
    if ((await sha256Hex(file.bytes)) === file.hash) files.set(file.hash, file);
    else problems.push(`the file ${file.hash.slice(0, 12)}… is damaged (its content does not match its name); it was left out`);
  }
  return { text: read.text, files, problems };
}

/**
 * Keeps the files the imported decks refer to, before the decks are saved (a full disk stops the
 * import with nothing saved); answers how many referenced files the backup lacked.
 */
export async function keepBackupFiles(decks: readonly Deck[], files: ReadonlyMap<string, BackupFile>, store: Pick<MediaStore, 'put'>): Promise<number> {
  let lacking = 0;
  for (const hash of referencedHashes(decks.flatMap((deck) => deck.cards))) {
    const file = files.get(hash);
    if (file) await store.put(file.bytes, file.type);
    else lacking += 1;
  }
  return lacking;
}
