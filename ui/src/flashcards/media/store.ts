// The learner's pictures and sounds in the browser: IndexedDB (through `idb`), each file kept once
// under the SHA-256 of its bytes as an ArrayBuffer plus its MIME type (WebKit fails to store
// Blobs), whatever number of cards refer to it; files no card refers to are removed by `prune`.
// The only module that opens the media database; everything else asks it by hash.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { isMediaHash } from './ref';

export const MEDIA_DB = 'hearth-media';
const STORE = 'files';
const VERSION = 1;

/** One stored file. */
export interface MediaFile {
  readonly hash: string;
  readonly type: string;
  readonly bytes: ArrayBuffer;
  readonly size: number;
}

interface MediaSchema extends DBSchema {
  files: { key: string; value: MediaFile };
}

/** Why a file could not be kept, in words the learner reads. */
export class MediaStoreError extends Error {
  readonly full: boolean;
  constructor(message: string, full = false) {
    super(message);
    this.name = 'MediaStoreError';
    this.full = full;
  }
}

/** The SHA-256 of the bytes as 64 lower-case hex digits (the platform's own digest). */
export async function sha256Hex(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', view as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

const isQuotaError = (error: unknown) => error instanceof DOMException && (error.name === 'QuotaExceededError' || error.name === 'NS_ERROR_DOM_QUOTA_REACHED');

export interface MediaStore {
  /** Keeps the file (once) and answers its hash; a full disk throws MediaStoreError with `full`. */
  put(bytes: ArrayBuffer | Uint8Array, type: string): Promise<string>;
  get(hash: string): Promise<MediaFile | undefined>;
  has(hash: string): Promise<boolean>;
  /** The hashes of every stored file. */
  hashes(): Promise<string[]>;
  /** Bytes stored in all. */
  usage(): Promise<number>;
  /** Removes every file whose hash is not in `keep`; answers how many were removed. */
  prune(keep: ReadonlySet<string>): Promise<number>;
}

/** A store over the database `name` (tests give each their own), opened at first use. */
export function createMediaStore(name: string = MEDIA_DB): MediaStore {
  let opened: Promise<IDBPDatabase<MediaSchema>> | null = null;
  const db = () => {
    if (!opened) {
      opened = openDB<MediaSchema>(name, VERSION, {
        upgrade(database) {
          if (!database.objectStoreNames.contains(STORE)) database.createObjectStore(STORE, { keyPath: 'hash' });
        },
      });
      // A failed open (private mode, storage blocked) is tried again at the next use.
      opened.catch(() => {
        opened = null;
      });
    }
    return opened;
  };

  return {
    async put(bytes, type) {
      const copy = bytes instanceof Uint8Array ? bytes.slice().buffer : bytes.slice(0);
      const hash = await sha256Hex(copy);
      const database = await db();
      if (await database.getKey(STORE, hash)) return hash;
      try {
        await database.put(STORE, { hash, type, bytes: copy, size: copy.byteLength });
      } catch (error) {
        if (isQuotaError(error)) throw new MediaStoreError('The device is full: the file was not kept. Everything stored before is still there.', true);
        throw new MediaStoreError(`The file could not be kept: ${error instanceof Error ? error.message : String(error)}`);
      }
      return hash;
    },
    async get(hash) {
      if (!isMediaHash(hash)) return undefined;
      return (await db()).get(STORE, hash);
    },
    async has(hash) {
      if (!isMediaHash(hash)) return false;
      return (await (await db()).getKey(STORE, hash)) !== undefined;
    },
    async hashes() {
      return (await db()).getAllKeys(STORE);
    },
    async usage() {
      let total = 0;
      let cursor = await (await db()).transaction(STORE).store.openCursor();
      while (cursor) {
        total += cursor.value.size;
        cursor = await cursor.continue();
      }
      return total;
    },
    async prune(keep) {
      const tx = (await db()).transaction(STORE, 'readwrite');
      let removed = 0;
      for (const hash of await tx.store.getAllKeys()) {
        if (keep.has(hash)) continue;
        await tx.store.delete(hash);
        removed += 1;
      }
      await tx.done;
      return removed;
    },
  };
}

/** The app's one media store. */
export const mediaStore: MediaStore = createMediaStore();
