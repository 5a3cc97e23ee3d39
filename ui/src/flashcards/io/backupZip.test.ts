import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { defaultMeta, normaliseForSave, type Deck } from '../deck';
import { sha256Hex, type MediaFile, type MediaStore } from '../media/store';
import type { MediaRef } from '../media/ref';
import { readBackup, writeBackup } from './backup';
import { BACKUP_BUDGETS, DECKS_ENTRY, isZip, keepBackupFiles, MEDIA_ENTRY, openBackupZip, unpackBackupZip, writeBackupZip } from './backupZip';
import { ImportError } from './delimited';

/** A media store in memory: what the IndexedDB one does, for these tests only. */
function memoryStore(): MediaStore & { files: Map<string, MediaFile> } {
  const files = new Map<string, MediaFile>();
  return {
    files,
    async put(bytes, type) {
      const copy = bytes instanceof Uint8Array ? bytes.slice().buffer : bytes.slice(0);
      const hash = await sha256Hex(copy);
      if (!files.has(hash)) files.set(hash, { hash, type, bytes: copy, size: copy.byteLength });
      return hash;
    },
    get: (hash) => Promise.resolve(files.get(hash)),
    has: (hash) => Promise.resolve(files.has(hash)),
    hashes: () => Promise.resolve([...files.keys()]),
    usage: () => Promise.resolve([...files.values()].reduce((sum, file) => sum + file.size, 0)),
    prune(keep) {
      let removed = 0;
      for (const hash of [...files.keys()]) if (!keep.has(hash) && files.delete(hash)) removed += 1;
      return Promise.resolve(removed);
    },
  };
}

const counter = () => {
  let n = 0;
  return () => `new-${++n}`;
};

const now = new Date('2026-11-28T04:00:00.000Z');

function deckWith(id: string, media: MediaRef[][]): Deck {
  return normaliseForSave(
    id,
    { ...defaultMeta(), name: `Deck ${id}` },
    media.map((refs, i) => ({
      id: `${id}-${i}`,
      front: `f${i}`,
      back: `b${i}`,
      pronunciation: '',
      gender: '',
      example: '',
      tags: [],
      suspended: false,
      media: refs,
      guid: '',
    })),
    now,
  );
}

async function fixture() {
  const store = memoryStore();
  const picture = new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 5]);
  const sound = new Uint8Array(5000).map((_, i) => (i * 7) % 256);
  const pictureHash = await store.put(picture, 'image/webp');
  const soundHash = await store.put(sound, 'audio/webm;codecs=opus');
  const image: MediaRef = { hash: pictureHash, name: 'hund.webp', kind: 'image', field: 'front' };
  const voice: MediaRef = { hash: soundHash, name: 'recording-1.webm', kind: 'sound', field: 'back' };
  // The same picture on two cards of two decks: kept once in the zip.
  const decks = [deckWith('a', [[image, voice], []]), deckWith('b', [[{ ...image, field: 'back' }]])];
  return { store, decks, pictureHash, soundHash, picture, sound };
}

describe('the backup zip', () => {
  it('round-trips the decks and each referenced file once, into a fresh store', async () => {
    const { store, decks, pictureHash, soundHash, picture, sound } = await fixture();
    // A file no card refers to stays out.
    await store.put(new Uint8Array([9, 9, 9]), 'image/png');
    const { zip, missing } = await writeBackupZip(decks, now, {}, store);
    expect(missing).toBe(0);
    expect(isZip(zip)).toBe(true);
    const opened = await openBackupZip(zip);
    expect(opened.problems).toEqual([]);
    // The decks' JSON is the JSON backup as before, so it reads as one.
    expect(opened.text).toBe(writeBackup(decks, now, {}));
    const read = readBackup(opened.text, counter());
    expect(read.decks).toEqual(decks);
    expect([...opened.files.keys()].sort()).toEqual([pictureHash, soundHash].sort());

    const fresh = memoryStore();
    expect(await keepBackupFiles(read.decks, opened.files, fresh)).toBe(0);
    expect(new Uint8Array(fresh.files.get(pictureHash)?.bytes ?? new ArrayBuffer(0))).toEqual(picture);
    expect(fresh.files.get(pictureHash)?.type).toBe('image/webp');
    expect(new Uint8Array(fresh.files.get(soundHash)?.bytes ?? new ArrayBuffer(0))).toEqual(sound);
    expect(fresh.files.get(soundHash)?.type).toBe('audio/webm;codecs=opus');
    expect(fresh.files.size).toBe(2);
  });

  it('leaves out a file this device lacks and says how many', async () => {
    const { store, decks, soundHash } = await fixture();
    store.files.delete(soundHash);
    const { zip, missing } = await writeBackupZip(decks, now, {}, store);
    expect(missing).toBe(1);
    const opened = await openBackupZip(zip);
    expect(await keepBackupFiles(readBackup(opened.text, counter()).decks, opened.files, memoryStore())).toBe(1);
  });

  it('checks each file against its hash and its listed size', async () => {
    const good = new Uint8Array([1, 2, 3]);
    const goodHash = await sha256Hex(good);
    const wrongHash = 'f'.repeat(64);
    const shortHash = 'e'.repeat(64);
    const zip = zipSync({
      [DECKS_ENTRY]: strToU8(writeBackup([deckWith('a', [[]])], now)),
      [MEDIA_ENTRY]: strToU8(
        JSON.stringify({
          version: 1,
          files: [
            { hash: goodHash, type: 'image/png', size: 3 },
            { hash: wrongHash, type: 'image/png', size: 3 },
            { hash: shortHash, type: 'image/png', size: 10 },
          ],
        }),
      ),
      [`media/${goodHash}`]: good,
      [`media/${wrongHash}`]: new Uint8Array([4, 5, 6]),
      [`media/${shortHash}`]: new Uint8Array([4, 5, 6]),
      'media/not-a-hash': new Uint8Array([1]),
    });
    const opened = await openBackupZip(zip);
    expect([...opened.files.keys()]).toEqual([goodHash]);
    expect(opened.problems).toEqual(
      [
        'the file ffffffffffff… is damaged (its content does not match its name); it was left out',
        'the file eeeeeeeeeeee… has 3 bytes, not the 10 listed; it was left out',
      ].sort((a, b) => (a.includes('damaged') === b.includes('damaged') ? 0 : a.includes('bytes') ? -1 : 1)),
    );
  });

  it('refuses, in words, a zip past its budgets before unpacking it', () => {
    const zip = zipSync({ [DECKS_ENTRY]: strToU8('{}'), 'media/x': new Uint8Array(1) });
    expect(() => unpackBackupZip(zip, { ...BACKUP_BUDGETS, zipBytes: 10 })).toThrow(/backups up to 0 MB can be imported/);
    // A zip bomb: 8 MB of zeros packs to a few kB.
    const bomb = zipSync({ [DECKS_ENTRY]: new Uint8Array(8 * 1024 * 1024) }, { level: 9 });
    expect(() => unpackBackupZip(bomb)).toThrow(
      'decks.json in the backup unpacks to more than 100 times its packed size; the file is not a backup this app wrote',
    );
    const many: Record<string, Uint8Array> = { [DECKS_ENTRY]: strToU8('[]') };
    for (let i = 0; i < 5; i += 1) many[`media/${i.toString(16).repeat(64)}`] = new Uint8Array([i]);
    expect(() => unpackBackupZip(zipSync(many), { ...BACKUP_BUDGETS, entries: 4 })).toThrow('the backup holds more than 2 files; it cannot be imported');
    expect(() => unpackBackupZip(zipSync({ [DECKS_ENTRY]: new Uint8Array(2000) }), { ...BACKUP_BUDGETS, decksBytes: 1000 })).toThrow(
      /decks.json in the backup is 0 MB unpacked/,
    );
    expect(() => unpackBackupZip(zipSync({ 'other.txt': strToU8('x') }))).toThrow('this zip is not a Hearth backup: it holds no decks.json');
    expect(() => unpackBackupZip(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]))).toThrow(ImportError);
  });

  it('still reads the old JSON-only backup', () => {
    const decks = [deckWith('a', [[]])];
    expect(readBackup(writeBackup(decks, now), counter()).decks).toEqual(decks);
  });
});
