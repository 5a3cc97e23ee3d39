// The cards' pictures and sounds through sync and share links, against the in-memory server: each
// file sealed for its blob and name (named by a keyed hash of its content, opened only as the file
// the card names), sent once (a second sync sends nothing for it), fetched once per device (a
// device keeps what it fetched), the card's placeholder fetcher, the vault's media quota refusing a
// file without stopping the decks, and a share link carrying its deck's files to "Add to my decks".
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { enterBrowser, FakeSyncServer, sha256Hex, type memoryAdapters } from './fakeServer';
import { mediaName, openMedia, packFile, sealMedia, unpackFile } from './media';

const KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8';
const OTHER_KEY = 'HxwdHhsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA';
const PICTURE = new TextEncoder().encode('\x89PNG a small picture of a dog').buffer;

describe('a sealed media file', () => {
  const blob = { kind: 'vaults' as const, id: 'a'.repeat(32), key: KEY };

  it('is named by a keyed hash: the same file the same name under one key, another under another, never its SHA-256', async () => {
    const hash = await sha256Hex(PICTURE);
    const name = await mediaName(KEY, hash);
    expect(name).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await mediaName(KEY, hash)).toBe(name);
    expect(await mediaName(OTHER_KEY, hash)).not.toBe(name);
    expect(hash.includes(name)).toBe(false);
  });

  it('opens only as the file the card names, for its blob and name, and carries its type', async () => {
    const hash = await sha256Hex(PICTURE);
    const name = await mediaName(KEY, hash);
    const sealed = await sealMedia({ type: 'image/png', bytes: PICTURE }, blob, name);
    const plain = new TextDecoder().decode(sealed);
    expect(plain.includes('a small picture')).toBe(false);
    const opened = await openMedia(sealed, blob, name, hash);
    expect(opened?.type).toBe('image/png');
    expect(new Uint8Array(opened?.bytes ?? new ArrayBuffer(0))).toEqual(new Uint8Array(PICTURE));
    // Another name, another blob, another file's hash, a changed byte: refused.
    expect(await openMedia(sealed, blob, 'x'.repeat(22), hash)).toBeNull();
    expect(await openMedia(sealed, { ...blob, id: 'b'.repeat(32) }, name, hash)).toBeNull();
    expect(await openMedia(sealed, blob, name, 'f'.repeat(64))).toBeNull();
    const changed = sealed.slice();
    changed[20] = (changed[20] ?? 0) ^ 1;
    expect(await openMedia(changed, blob, name, hash)).toBeNull();
  });

  it('packs its type before its bytes and refuses what is not a packed file', () => {
    const packed = packFile({ type: 'audio/mpeg', bytes: PICTURE });
    expect(unpackFile(packed)?.type).toBe('audio/mpeg');
    expect(unpackFile(new Uint8Array([200, 1, 2]))).toBeNull();
  });
});

type Engine = typeof import('./engine');

interface Browser {
  storage: MemoryStorage;
  adapters: ReturnType<typeof memoryAdapters>;
  engine: Engine;
}

let server: FakeSyncServer;

async function browser(): Promise<Browser> {
  const storage = new MemoryStorage();
  const adapters = await enterBrowser(storage, server);
  return { storage, adapters, engine: await import('./engine') };
}

/** A deck whose one card shows the picture with SHA-256 `hash`. */
const deckWith = (hash: string, at = 1_000) => ({
  id: 'd',
  name: 'Tiere',
  createdAt: new Date(at).toISOString(),
  cards: [{ id: 'c1', front: 'der Hund', back: 'the dog', media: [{ hash, name: 'hund.png', kind: 'image', field: 'front' }] }],
});

const mediaRequests = (method: string) => server.requests.filter((r) => r.method === method && r.path.includes('/media/'));

beforeEach(() => {
  server = new FakeSyncServer();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a picture through the vault', () => {
  it('is sent once, fetched once by the other device, and neither again', async () => {
    const a = await browser();
    const hash = await a.adapters.media.put(PICTURE, 'image/png');
    a.adapters.decks.apply({ put: { d: deckWith(hash) }, remove: [], order: ['d'], reviews: {} });
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    expect(mediaRequests('PUT')).toHaveLength(1);
    const stored = [...(server.blobs.get(vault.id)?.media.values() ?? [])];
    expect(stored).toHaveLength(1);
    expect(new TextDecoder().decode(stored[0]).includes('a small picture')).toBe(false);
    await a.engine.syncNow();
    await a.engine.syncNow();
    expect(mediaRequests('PUT')).toHaveLength(1);

    // Another device joins: it has the card, fetches the file once, and keeps it.
    const lists = () => server.requests.filter((r) => r.path.endsWith('/media')).length;
    const listed = lists();
    const b = await browser();
    await b.engine.joinVault({ id: vault.id, key: vault.key, token: vault.token });
    expect(b.adapters.decksHere.get('d')).toBeDefined();
    await (await import('./mediaSync')).mediaFetched();
    expect(b.adapters.media.files.get(hash)?.type).toBe('image/png');
    expect(mediaRequests('GET')).toHaveLength(1);
    await b.engine.syncNow();
    await b.engine.syncNow();
    expect(mediaRequests('GET')).toHaveLength(1);
    // B neither sends it back nor asks the server's list about it: it fetched it from there.
    expect(mediaRequests('PUT')).toHaveLength(1);
    expect(lists()).toBe(listed);
  });

  it('a card showing a placeholder asks the fetcher, which brings the file from the vault', async () => {
    const a = await browser();
    const hash = await a.adapters.media.put(PICTURE, 'image/png');
    a.adapters.decks.apply({ put: { d: deckWith(hash) }, remove: [], order: ['d'], reviews: {} });
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    const b = await browser();
    await b.engine.joinVault({ id: vault.id, key: vault.key, token: vault.token });
    await (await import('./mediaSync')).mediaFetched();
    b.adapters.media.files.clear();
    expect(await b.adapters.media.fetcher?.(hash)).toBe(true);
    expect(b.adapters.media.files.has(hash)).toBe(true);
    // A file the vault does not hold is not found (and not asked for again at once).
    const before = mediaRequests('GET').length;
    expect(await b.adapters.media.fetcher?.('e'.repeat(64))).toBe(false);
    expect(await b.adapters.media.fetcher?.('e'.repeat(64))).toBe(false);
    expect(mediaRequests('GET').length).toBe(before + 1);
  });

  it('a file past the media quota is refused in words, and the decks still sync', async () => {
    server.mediaQuota = 10;
    const a = await browser();
    const hash = await a.adapters.media.put(PICTURE, 'image/png');
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    a.adapters.decks.apply({ put: { d: deckWith(hash) }, remove: [], order: ['d'], reviews: {} });
    await a.engine.syncNow();
    expect(a.engine.currentStatus().error).toMatch(/media quota/);
    expect(server.blobs.get(vault.id)?.version).toBe(2);
    expect(server.blobs.get(vault.id)?.media.size).toBe(0);
  });

  it('a file no card refers to any more leaves the server', async () => {
    const a = await browser();
    const hash = await a.adapters.media.put(PICTURE, 'image/png');
    a.adapters.decks.apply({ put: { d: deckWith(hash) }, remove: [], order: ['d'], reviews: {} });
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    expect(server.blobs.get(vault.id)?.media.size).toBe(1);
    const plain = { id: 'c1', front: 'der Hund', back: 'the dog' };
    a.adapters.decks.apply({ put: { d: { ...deckWith(hash, 2_000), cards: [plain] } }, remove: [], order: ['d'], reviews: {} });
    await a.engine.syncNow();
    expect(server.blobs.get(vault.id)?.media.size).toBe(0);
  });
});

describe('a picture through a share link', () => {
  it('is sent with the link, and "Add to my decks" brings it before the copy is saved', async () => {
    const a = await browser();
    const hash = await a.adapters.media.put(PICTURE, 'image/png');
    a.adapters.decks.apply({ put: { d: deckWith(hash) }, remove: [], order: ['d'], reviews: {} });
    const made = await (await import('./shares')).shareDeck('d');
    if (!made) throw new Error('no link');
    expect(server.blobs.get(made.id)?.media.size).toBe(1);

    const c = await browser();
    const shares = await import('./shares');
    const opened = await shares.openShare({ id: made.id, key: made.key });
    if (!opened) throw new Error('not opened');
    const updates = await import('./shareUpdates');
    const copyId = await updates.addFollowingCopy({ id: made.id, key: made.key }, opened);
    expect(c.adapters.decksHere.get(copyId)).toBeDefined();
    expect(c.adapters.media.files.get(hash)?.type).toBe('image/png');
  });
});
