// The engine's and shared decks' side of binding and link replacement, against the in-memory
// server: creates name their id and seal for it; a replayed, rolled-back or unbound-after-bound
// vault is refused with nothing merged or written; a vault from before binding converts on its
// first sync; "Replace the sync link" moves to a new vault and removes the old one, finishing a
// lost removal later; a shared deck is bound the same way.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { open, seal, type Place } from './crypto';
import { enterBrowser, FakeSyncServer, type memoryAdapters } from './fakeServer';

type Engine = typeof import('./engine');
type Shares = typeof import('./shares');

let storage: MemoryStorage;
let server: FakeSyncServer;
let adapters: ReturnType<typeof memoryAdapters>;
let engine: Engine;
let shares: Shares;

const deck = (id: string, name: string, at: number) => ({ id, name, createdAt: new Date(at).toISOString(), cards: [] });
const vaultAt = (id: string, version: number): Place => ({ kind: 'vaults', id, version });

beforeEach(async () => {
  storage = new MemoryStorage();
  server = new FakeSyncServer();
  adapters = await enterBrowser(storage, server);
  adapters.decks.apply({ put: { a: deck('a', 'Verbs', 1_000) }, remove: [], order: ['a'], reviews: {} });
  engine = await import('./engine');
  shares = await import('./shares');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A vault made here, then one more version written (a new deck), so the server holds v1's body and v2's. */
async function vaultWithTwoVersions() {
  const vault = await engine.createVault();
  if (!vault) throw new Error('no vault');
  const v1 = server.blobs.get(vault.id)?.body;
  adapters.decks.apply({ put: { b: deck('b', 'Nouns', 2_000) }, remove: [], order: ['b', 'a'], reviews: {} });
  await engine.syncNow();
  const stored = server.blobs.get(vault.id);
  if (!v1 || stored?.version !== 2) throw new Error('no second version');
  return { vault, v1, v2: stored.body };
}

describe('bound vaults', () => {
  it('a create names the id it chose and seals for it at version 1; a write seals for the next version', async () => {
    const vault = await engine.createVault();
    const [post] = server.sent('POST');
    expect(post?.headers.get('X-Blob-Id')).toBe(vault?.id);
    expect(vault).toMatchObject({ version: 1, seenVersion: 1, boundSeen: true });
    const id = vault?.id ?? '';
    const body = server.blobs.get(id)?.body ?? new Uint8Array();
    expect(await open(body, vault?.key ?? '', vaultAt(id, 1))).toMatchObject({ type: 'hearth-vault' });
    adapters.decks.apply({ put: { b: deck('b', 'Nouns', 2_000) }, remove: [], order: ['b', 'a'], reviews: {} });
    await engine.syncNow();
    const v2 = server.blobs.get(id)?.body ?? new Uint8Array();
    expect(await open(v2, vault?.key ?? '', vaultAt(id, 2))).toMatchObject({ type: 'hearth-vault' });
    await expect(open(v2, vault?.key ?? '', vaultAt(id, 1))).rejects.toThrow();
    expect(engine.readVault()).toMatchObject({ version: 2, seenVersion: 2, boundSeen: true });
  });

  it('refuses the version-2 body stored as version 3 (a replay): nothing merged, nothing written, said in words', async () => {
    const { vault, v1 } = await vaultWithTwoVersions();
    const stored = server.blobs.get(vault.id);
    if (!stored) throw new Error('gone');
    // Someone holding the write token stores the first body again as the next version.
    stored.body = v1;
    stored.version = 3;
    const decksBefore = JSON.stringify(adapters.decks.read());
    const puts = server.sent('PUT').length;
    await engine.syncNow();
    expect(engine.currentStatus()).toMatchObject({ phase: 'error' });
    expect(engine.currentStatus().error).toMatch(/not written as version 3 of this vault.*nothing here was changed/);
    expect(JSON.stringify(adapters.decks.read())).toBe(decksBefore);
    expect(server.sent('PUT').length).toBe(puts);
    expect(engine.readVault()).toMatchObject({ version: 2, seenVersion: 2 });
  });

  it('refuses an older version than seen (a restored backup), keeping the decks here', async () => {
    const { vault, v1 } = await vaultWithTwoVersions();
    const stored = server.blobs.get(vault.id);
    if (!stored) throw new Error('gone');
    stored.body = v1;
    stored.version = 1;
    await engine.syncNow();
    expect(engine.currentStatus().error).toBe(
      'The server sent an older version of this vault (version 1) than this device has already seen (version 2). It was refused, and nothing here was changed.',
    );
    expect([...adapters.decksHere.keys()].sort()).toEqual(['a', 'b']);
    expect(server.blobs.get(vault.id)?.version).toBe(1);
  });

  it('takes a vault sealed before binding once, writes it back bound, and refuses an unbound body after that', async () => {
    // This browser holds nothing the vault lacks, so only the conversion makes it write.
    adapters.decks.apply({ put: {}, remove: ['a'], order: [], reviews: {} });
    // A vault as the app made it before binding: no additional data, the server's own id.
    const { newKey, newToken } = await import('./crypto');
    const key = await newKey();
    const token = newToken();
    const { createBlob } = await import('./api');
    const legacyBody = await seal({ type: 'hearth-vault', version: 1, decks: { z: { savedAt: 5, baseAt: 0, deck: deck('z', 'Old', 5) } }, reviews: {} }, key);
    const made = await createBlob('vaults', legacyBody, token);
    if (!made) throw new Error('not made');
    await engine.joinVault({ id: made.id, key, token });
    expect(engine.currentStatus().phase).toBe('idle');
    expect(adapters.decksHere.has('z')).toBe(true);
    // Converted on this first sync: the vault now holds a bound version 2.
    const stored = server.blobs.get(made.id);
    expect(stored?.version).toBe(2);
    expect(await open(stored?.body ?? new Uint8Array(), key, vaultAt(made.id, 2))).toMatchObject({ type: 'hearth-vault' });
    expect(engine.readVault()).toMatchObject({ seenVersion: 2, boundSeen: true });
    // The old unbound body put back as version 3: refused.
    if (!stored) throw new Error('gone');
    stored.body = legacyBody;
    stored.version = 3;
    await engine.syncNow();
    expect(engine.currentStatus().error).toMatch(/old unprotected copy of this vault/);
  });

  it('converts a vault this device synced before binding at its first sync, even with nothing new here', async () => {
    const { newKey, newToken } = await import('./crypto');
    const { createBlob } = await import('./api');
    const key = await newKey();
    const token = newToken();
    const made = await createBlob('vaults', await seal({ type: 'hearth-vault', version: 1, decks: {}, reviews: {} }, key), token);
    if (!made) throw new Error('not made');
    await engine.joinVault({ id: made.id, key, token });
    // As an older version of the app left it: synced at version 2, no memory of versions or binding.
    const stored = server.blobs.get(made.id);
    if (!stored) throw new Error('gone');
    stored.body = await seal({ type: 'hearth-vault', version: 1, decks: {}, reviews: {} }, key);
    storage.setItem('sync:vault', JSON.stringify({ id: made.id, key, token, version: 2, lastSyncedAt: null, gone: false }));
    const puts = server.sent('PUT').length;
    await engine.syncNow();
    expect(server.sent('PUT').length).toBe(puts + 1);
    expect(stored.version).toBe(3);
    expect(await open(stored.body, key, vaultAt(made.id, 3))).toMatchObject({ type: 'hearth-vault' });
    expect(engine.readVault()).toMatchObject({ version: 3, seenVersion: 3, boundSeen: true });
    // From then on an unchanged vault costs a 304 again.
    await engine.syncNow();
    expect(server.sent('PUT').length).toBe(puts + 1);
    expect(server.sent('GET').at(-1)?.headers.get('If-None-Match')).toBe('"v3"');
  });
});

describe('replacing the sync link', () => {
  it('moves to a new vault (new key, token and id) holding everything, and removes the old one', async () => {
    const old = await engine.createVault();
    if (!old) throw new Error('no vault');
    adapters.decks.apply({ put: { b: deck('b', 'Nouns', 2_000) }, remove: [], order: ['b', 'a'], reviews: {} });
    expect(await engine.replaceVault()).toBe(true);
    const now = engine.readVault();
    expect(now?.id).not.toBe(old.id);
    expect(now?.key).not.toBe(old.key);
    expect(now?.token).not.toBe(old.token);
    expect(now).toMatchObject({ version: 1, seenVersion: 1, boundSeen: true, gone: false });
    expect(server.blobs.has(old.id)).toBe(false);
    expect([...server.blobs.keys()]).toEqual([now?.id]);
    const body = server.blobs.get(now?.id ?? '')?.body ?? new Uint8Array();
    const value = (await open(body, now?.key ?? '', vaultAt(now?.id ?? '', 1))) as { decks: Record<string, unknown> };
    expect(Object.keys(value.decks).sort()).toEqual(['a', 'b']);
    expect(engine.hasRetiredVault()).toBe(false);
    // The old link can neither read nor write.
    const { readBlob, writeBlob } = await import('./api');
    expect(await readBlob('vaults', old.id)).toEqual({ kind: 'gone' });
    expect(await writeBlob('vaults', old.id, old.token, 1, new Uint8Array([1]))).toEqual({ kind: 'gone' });
    // And this browser keeps syncing with the new one.
    await engine.syncNow();
    expect(engine.currentStatus().phase).toBe('idle');
  });

  it('keeps the old vault listed when its removal gets no answer, and removes it at the next sync', async () => {
    const old = await engine.createVault();
    if (!old) throw new Error('no vault');
    const badGateway = () => new Response('', { status: 502 });
    // The sync's read and the create are answered; both tries of the removal get a proxy's 502.
    server.script.push(
      () => null,
      () => null,
      badGateway,
      badGateway,
    );
    expect(await engine.replaceVault()).toBe(true);
    expect(engine.hasRetiredVault()).toBe(true);
    expect(server.blobs.has(old.id)).toBe(true);
    await engine.syncNow();
    expect(engine.hasRetiredVault()).toBe(false);
    expect(server.blobs.has(old.id)).toBe(false);
    expect(server.sent('DELETE').every((request) => request.path === `/api/sync/vaults/${old.id}`)).toBe(true);
  });

  it('after a lost create answer, trying again finishes the same new vault and leaves the old one until then', async () => {
    const old = await engine.createVault();
    if (!old) throw new Error('no vault');
    server.script.push(
      () => null,
      () => 'lose',
    );
    await expect(engine.replaceVault()).rejects.toThrow(/Failed to fetch/);
    expect(engine.readVault()?.id).toBe(old.id);
    expect(server.blobs.has(old.id)).toBe(true);
    expect(await engine.replaceVault()).toBe(true);
    const [, first, second] = server.sent('POST');
    expect(second?.headers.get('X-Blob-Id')).toBe(first?.headers.get('X-Blob-Id'));
    expect(server.blobs.size).toBe(1);
    expect(engine.readVault()?.id).toBe(first?.headers.get('X-Blob-Id'));
  });

  it('refuses while the vault is gone', async () => {
    await engine.createVault();
    server.blobs.clear();
    await engine.syncNow();
    await expect(engine.replaceVault()).rejects.toThrow(/no link to replace/);
  });
});

describe('bound shared decks', () => {
  it('are made under the id chosen here and sealed for it; a reader refuses a rollback and a moved body', async () => {
    const share = await shares.shareDeck('a');
    if (!share) throw new Error('no share');
    expect(server.sent('POST')[0]?.headers.get('X-Blob-Id')).toBe(share.id);
    const stored = server.blobs.get(share.id);
    if (!stored) throw new Error('not stored');
    expect(await open(stored.body, share.key, { kind: 'shares', id: share.id, version: 1 })).toMatchObject({ type: 'hearth-shared-deck' });
    expect((await shares.openShare(share))?.deck).toMatchObject({ name: 'Verbs' });
    expect(JSON.parse(storage.getItem('sync:sharesSeen') ?? '{}')).toEqual({ [share.id]: { seenVersion: 1, boundSeen: true } });
    // The same body stored as version 2: not what version 2 was sealed as.
    stored.version = 2;
    await expect(shares.openShare(share)).rejects.toThrow(/not written as version 2 of this shared deck/);
    // A newer version seen here, then the server goes back to version 1.
    stored.body = await seal({ type: 'hearth-shared-deck', version: 1, deck: deck('a', 'Verbs 2', 3_000) }, share.key, {
      kind: 'shares',
      id: share.id,
      version: 2,
    });
    expect((await shares.openShare(share))?.deck).toMatchObject({ name: 'Verbs 2' });
    stored.version = 1;
    await expect(shares.openShare(share)).rejects.toThrow(/older version of this shared deck \(version 1\) than this device has already seen \(version 2\)/);
  });

  it('a shared deck made before binding still opens for a reader who never saw a bound one', async () => {
    const { newKey, newToken } = await import('./crypto');
    const { createBlob } = await import('./api');
    const key = await newKey();
    const made = await createBlob('shares', await seal({ type: 'hearth-shared-deck', version: 1, deck: deck('a', 'Old share', 1) }, key), newToken());
    if (!made) throw new Error('not made');
    expect((await shares.openShare({ id: made.id, key }))?.deck).toMatchObject({ name: 'Old share' });
  });
});
