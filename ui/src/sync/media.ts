// The cards' pictures and sounds through sync and share links. Each file travels on its own beside
// its vault or shared deck, sealed with that blob's key for its place (kind, id and its name) and
// named by a keyed hash of its content (crypto.ts mediaNamer over the file's SHA-256: the same
// family as the parts' names, its own label), so the server learns nothing of it and cannot swap
// one file for another: a file is opened only when its bytes hash to the SHA-256 the card names.
// A file is sent once: this browser remembers the names each blob holds (state.ts), asks the server's
// list only when a card refers to a file it does not know there, and sends only what the list
// lacks. A file is fetched once per device: what is fetched is kept in the media store, and only a
// file the store lacks is asked for (at most once a minute each, FETCHES at a time).
import type { MediaAdapter, SyncMediaFile } from '../lib/syncAdapters';
import { listMedia, readMedia, removeMedia, writeMedia, type BlobKind } from './api';
import { decrypt, mediaNamer, sealBytes, type Place } from './crypto';
import type { SyncStore } from './state';

/** A vault or shared deck whose media are read (and, with its token, written). */
export interface MediaBlob {
  kind: BlobKind;
  id: string;
  key: string;
  token?: string;
}

/** The longest MIME type a sealed file carries. */
const MAX_TYPE = 100;
/** Files fetched or sent at once. */
export const FETCHES = 4;
/** A file that could not be fetched is asked for again after this long at the soonest. */
export const RETRY_MS = 60_000;

const place = (blob: MediaBlob, name: string): Place => ({ kind: blob.kind, id: blob.id, version: 0, media: name });

/** The file as it is sealed: u8 type length, the type (ASCII), the bytes. */
export function packFile(file: SyncMediaFile): Uint8Array<ArrayBuffer> {
  const type = new TextEncoder().encode(/^[\x20-\x7e]*$/.test(file.type) ? file.type.slice(0, MAX_TYPE) : 'application/octet-stream');
  const out = new Uint8Array(1 + type.length + file.bytes.byteLength);
  out[0] = type.length;
  out.set(type, 1);
  out.set(new Uint8Array(file.bytes), 1 + type.length);
  return out;
}

/** The file `packFile` made; null when it is not one. */
export function unpackFile(plain: Uint8Array<ArrayBuffer>): SyncMediaFile | null {
  const length = plain[0];
  if (length === undefined || length > MAX_TYPE || plain.length < 1 + length) return null;
  const type = new TextDecoder().decode(plain.slice(1, 1 + length));
  return { type, bytes: plain.slice(1 + length).buffer };
}

async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The namer of `key`'s media, made once per key (a namer derives its HMAC key). */
const namers = new Map<string, Promise<(hash: string) => Promise<string>>>();
const namesByKey = new Map<string, Map<string, string>>();

/** The name the file with SHA-256 `hash` has beside blobs sealed with `key`. */
export async function mediaName(key: string, hash: string): Promise<string> {
  let names = namesByKey.get(key);
  if (!names) namesByKey.set(key, (names = new Map<string, string>()));
  const known = names.get(hash);
  if (known) return known;
  let namer = namers.get(key);
  if (!namer) namers.set(key, (namer = mediaNamer(key)));
  const name = await (await namer)(hash);
  names.set(hash, name);
  return name;
}

export const sealMedia = async (file: SyncMediaFile, blob: MediaBlob, name: string) => sealBytes(packFile(file), blob.key, place(blob, name));

/** The file sealed as `name` beside `blob`, if it is the one with SHA-256 `hash`; else null. */
export async function openMedia(sealed: Uint8Array<ArrayBuffer>, blob: MediaBlob, name: string, hash: string): Promise<SyncMediaFile | null> {
  const plain = await decrypt(sealed, blob.key, place(blob, name)).catch(() => null);
  const file = plain && unpackFile(plain);
  return file && (await sha256Hex(file.bytes)) === hash ? file : null;
}

/** What `sendMedia` did: files stored on the server now, and those it held already. */
export interface Sent {
  stored: number;
  held: number;
}

/** Runs `work` on each item, FETCHES at a time. */
async function each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let at = 0; at < items.length; at += FETCHES) await Promise.all(items.slice(at, at + FETCHES).map(work));
}

/**
 * Sends the files among `hashes` (what the cards refer to) that this browser holds and `blob`
 * lacks, with its token; forgets (and removes from the server) files no card refers to any more
 * when `prune`. Nothing is asked when every file is known to be there. A refusal (the media
 * quota, the storage) throws with the server's words after what fitted was kept.
 */
export async function sendMedia(blob: MediaBlob, hashes: Iterable<string>, files: MediaAdapter, store: SyncStore, prune = false): Promise<Sent> {
  const token = blob.token;
  const sent: Sent = { stored: 0, held: 0 };
  if (!token) return sent;
  const known = store.mediaSent(blob.id);
  const wanted = new Map<string, string>();
  for (const hash of new Set(hashes)) wanted.set(await mediaName(blob.key, hash), hash);
  const unknown: [string, string][] = [];
  for (const [name, hash] of wanted) if (!known.has(name) && (await files.has(hash))) unknown.push([name, hash]);
  const dropped = prune ? [...known].filter((name) => !wanted.has(name)) : [];
  if (unknown.length === 0 && dropped.length === 0) return sent;
  const keep = () => store.setMediaSent(blob.id, new Set([...known].filter((name) => !prune || wanted.has(name))));
  for (const name of dropped) {
    await removeMedia(blob.kind, blob.id, token, name);
    known.delete(name);
  }
  if (unknown.length === 0) {
    keep();
    return sent;
  }
  const there = await listMedia(blob.kind, blob.id);
  if (!there) return sent;
  try {
    await each(unknown, async ([name, hash]) => {
      if (there.has(name)) {
        known.add(name);
        return;
      }
      const file = await files.get(hash);
      if (!file) return;
      const answer = await writeMedia(blob.kind, blob.id, token, name, await sealMedia(file, blob, name));
      if (answer === 'gone') return;
      known.add(name);
      sent[answer] += 1;
    });
  } finally {
    keep();
  }
  return sent;
}

/** Files being fetched, by blob and hash, so a file asked for twice is fetched once. */
const fetching = new Map<string, Promise<boolean>>();
/** When a file last failed to come, by hash (epoch ms). */
const failedAt = new Map<string, number>();

/**
 * Brings the file with SHA-256 `hash` from beside `blob` into the media store: true once it is
 * there (also when it was already). False when the server lacks it, it is not the file the card
 * names, or it failed within RETRY_MS. With `store` (this browser's own vault), a file fetched is
 * remembered as held there, so no push asks the server about it again.
 */
export async function fetchMedia(blob: MediaBlob, hash: string, files: MediaAdapter, store?: SyncStore, now: () => number = Date.now): Promise<boolean> {
  if (await files.has(hash)) return true;
  const key = `${blob.id}/${hash}`;
  const running = fetching.get(key);
  if (running) return running;
  if (now() - (failedAt.get(key) ?? Number.NEGATIVE_INFINITY) < RETRY_MS) return false;
  const work = (async () => {
    const name = await mediaName(blob.key, hash);
    const sealed = await readMedia(blob.kind, blob.id, name);
    const file = sealed && (await openMedia(sealed, blob, name, hash));
    if (!file) return false;
    await files.put(file.bytes, file.type);
    store?.setMediaSent(blob.id, store.mediaSent(blob.id).add(name));
    return true;
  })()
    .catch(() => false)
    .then((ok) => {
      if (ok) failedAt.delete(key);
      else failedAt.set(key, now());
      fetching.delete(key);
      return ok;
    });
  fetching.set(key, work);
  return work;
}

/** Fetches every file among `hashes` the store lacks, FETCHES at a time; how many came. */
export async function fetchAllMissing(blob: MediaBlob, hashes: Iterable<string>, files: MediaAdapter, store?: SyncStore): Promise<number> {
  const missing: string[] = [];
  for (const hash of new Set(hashes)) if (!(await files.has(hash))) missing.push(hash);
  let came = 0;
  await each(missing, async (hash) => {
    if (await fetchMedia(blob, hash, files, store)) came += 1;
  });
  return came;
}

/** Forgets the files that failed (a test's fresh start). */
export function forgetFailures(): void {
  failedAt.clear();
}
