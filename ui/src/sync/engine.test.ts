// The sync engine and shared decks against an in-memory server that keeps the contract: the write
// token made here and stored before the create is sent, a create sent again after a lost answer
// getting the same blob, the site's key on creates only, octet-stream bodies, Retry-After obeyed,
// and a vault or shared deck the server no longer has.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { enterBrowser, FakeSyncServer, type memoryAdapters, readWholeVault } from './fakeServer';

type Engine = typeof import('./engine');
type Shares = typeof import('./shares');

let storage: MemoryStorage;
let server: FakeSyncServer;
let adapters: ReturnType<typeof memoryAdapters>;
let engine: Engine;
let shares: Shares;
let answers: (string | null)[];
let questions: string[];

const deck = (id: string, name: string, at: number) => ({ id, name, createdAt: new Date(at).toISOString(), cards: [] });

beforeEach(async () => {
  storage = new MemoryStorage();
  server = new FakeSyncServer(() => storage.getItem('sync:pendingVault') ?? storage.getItem('sync:shares'));
  answers = [];
  questions = [];
  const askKey = (refused: boolean) => {
    questions.push(refused ? 'refused' : 'asked');
    return answers.shift() ?? null;
  };
  adapters = await enterBrowser(storage, server, askKey);
  adapters.decks.apply({ put: { a: deck('a', 'Verbs', 1_000) }, remove: [], order: ['a'], reviews: {} });
  engine = await import('./engine');
  shares = await import('./shares');
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('making a vault', () => {
  it('sends a token made here, stored before the request goes, and keeps the answer', async () => {
    const vault = await engine.createVault();
    const [post] = server.sent('POST');
    const token = /^Bearer (.+)$/.exec(post?.headers.get('Authorization') ?? '')?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(post?.headers.get('Content-Type')).toBe('application/octet-stream');
    // When the request went, the token was already in storage.
    expect(JSON.parse(post?.stored ?? '{}')).toMatchObject({ token });
    expect(vault).toMatchObject({ id: [...server.blobs.keys()][0], token, version: 1, gone: false });
    expect(engine.readVault()).toEqual(vault);
    expect(engine.hasPendingVault()).toBe(false);
  });

  it('after a lost answer, trying again sends the same token and key and gets the same vault, not a second one', async () => {
    server.script.push(() => 'lose');
    await expect(engine.createVault()).rejects.toThrow(/Failed to fetch/);
    expect(engine.readVault()).toBeNull();
    expect(engine.hasPendingVault()).toBe(true);
    adapters.decks.apply({ put: { b: deck('b', 'Nouns', 2_000) }, remove: [], order: ['b', 'a'], reviews: {} });

    const vault = await engine.createVault();
    const [first, second] = server.sent('POST');
    expect(second?.headers.get('Authorization')).toBe(first?.headers.get('Authorization'));
    expect(server.blobs.size).toBe(1);
    expect(vault?.id).toBe([...server.blobs.keys()][0]);
    expect(engine.hasPendingVault()).toBe(false);
    // The vault holds the first try's body: the next sync merges with it, so the deck saved in
    // between reaches the vault too.
    expect(vault?.version).toBe(0);
    await engine.syncNow();
    const puts = server.sent('PUT');
    expect(puts).toHaveLength(1);
    expect(engine.readVault()?.version).toBe(2);
  });

  it('asks for the site key on a 401 (in sync words), sends it on the create only, never on a change', async () => {
    server.key = 's3cret';
    answers.push('s3cret');
    await engine.createVault();
    expect(questions).toEqual(['asked']);
    const posts = server.sent('POST');
    expect(posts.map((post) => post.headers.get('X-Sync-Key'))).toEqual([null, 's3cret']);
    // Both tries carried the token kept before the first.
    expect(posts[0]?.headers.get('Authorization')).toBe(posts[1]?.headers.get('Authorization'));
    expect(storage.getItem('site:key')).toBe('s3cret');

    adapters.decks.apply({ put: { c: deck('c', 'More', 3_000) }, remove: [], order: ['c', 'a'], reviews: {} });
    await engine.syncNow();
    const [put] = server.sent('PUT');
    expect(put?.headers.get('X-Sync-Key')).toBeNull();
    expect(put?.headers.get('X-Publish-Key')).toBeNull();
    expect(put?.headers.get('Content-Type')).toBe('application/octet-stream');
    expect(questions).toHaveLength(1);
  });

  it('stops quietly when the key question is cancelled, keeping the token for the next try', async () => {
    server.key = 'k';
    expect(await engine.createVault()).toBeNull();
    expect(engine.readVault()).toBeNull();
    expect(engine.hasPendingVault()).toBe(true);
  });
});

describe('the vault format', () => {
  it('a v1 vault (whole decks) is merged into one state on first sync, and the device writes it in parts (v3)', async () => {
    const { open, seal } = await import('./crypto');
    const vault = await engine.createVault();
    if (!vault) throw new Error('no vault');
    const [id] = [...server.blobs.keys()];
    const blob = id === undefined ? undefined : server.blobs.get(id);
    if (!blob) throw new Error('no blob');
    // Another device, still on the old app, wrote its decks as v1.
    const v1 = {
      type: 'hearth-vault',
      version: 1,
      decks: { b: { savedAt: 5_000, baseAt: 0, deck: deck('b', 'Nouns', 5_000) } },
      reviews: {},
      calendars: { savedAt: 0, list: [] },
    };
    // (Sealed for its place, as every app that binds bodies writes them.)
    blob.body = await seal(v1, vault.key, { kind: 'vaults', id: vault.id, version: blob.version + 1 });
    blob.version += 1;
    await engine.syncNow();
    expect(engine.currentStatus().error).toBeNull();
    expect([...adapters.decksHere.keys()].sort()).toEqual(['a', 'b']);
    // Written back as a manifest of parts (v3), which assemble to both decks.
    expect(((await open(blob.body, vault.key, { kind: 'vaults', id: vault.id, version: blob.version })) as { version: number }).version).toBe(3);
    const written = (await readWholeVault(server, vault.id, vault.key)) as { decks: Record<string, unknown> };
    expect(Object.keys(written.decks).sort()).toEqual(['a', 'b']);
    // The clock received what it read: the next stamp is after the v1 deck's.
    expect(JSON.parse(storage.getItem('sync:clock') ?? '{}')).toMatchObject({ wall: expect.any(Number) as number });
  });

  it('a vault of a newer format is refused in words, and nothing is written', async () => {
    const { seal } = await import('./crypto');
    const vault = await engine.createVault();
    if (!vault) throw new Error('no vault');
    const blob = [...server.blobs.values()][0];
    if (!blob) throw new Error('no blob');
    blob.body = await seal({ type: 'hearth-vault', version: 3, decks: {} }, vault.key, { kind: 'vaults', id: vault.id, version: blob.version + 1 });
    blob.version += 1;
    await engine.syncNow();
    expect(engine.currentStatus().error).toBe('The vault holds data this version of the app does not read.');
    expect(server.sent('PUT')).toHaveLength(0);
  });
});

describe('pacing pushes', () => {
  it('pushes a save a moment later, but never sooner than 2 s after the last write', () => {
    // Nothing written for a while: a quarter of a second, so saves in a row go together.
    expect(engine.pushDelay(60_000, 0)).toBe(engine.PUSH_DELAY_MS);
    expect(engine.pushDelay(60_000, 57_000)).toBe(engine.PUSH_DELAY_MS);
    // A write went 0.5 s ago: the next waits for the rest of the 2 s.
    expect(engine.pushDelay(60_000, 59_500)).toBe(1_500);
    expect(engine.pushDelay(60_000, 60_000)).toBe(engine.PUSH_GAP_MS);
    // Grading a card every second from a write at 0: pushes at 2 s, 4 s, 6 s… one every PUSH_GAP_MS,
    // which is the pace the server's write allowance per vault refills at.
    let lastWrite = 0;
    const writes: number[] = [];
    for (let now = 1_000; now <= 60_000; now += 1_000) {
      const at = now + engine.pushDelay(now, lastWrite);
      if (at <= now + 1_000) {
        writes.push(at);
        lastWrite = at;
      }
    }
    expect(writes.length).toBeLessThanOrEqual(30);
    for (const [i, at] of writes.entries()) if (i > 0) expect(at - (writes[i - 1] ?? 0)).toBeGreaterThanOrEqual(engine.PUSH_GAP_MS);
  });
});

describe('syncing', () => {
  it('waits as long as a 429 says, without asking the server sooner', async () => {
    await engine.createVault();
    vi.useFakeTimers({ now: Date.now() });
    server.script.push(
      () => new Response(JSON.stringify({ error: 'too many requests: try again in 30 seconds' }), { status: 429, headers: { 'Retry-After': '30' } }),
    );
    await engine.syncNow();
    const status = engine.currentStatus();
    expect(status).toMatchObject({ phase: 'error', error: 'too many requests: try again in 30 seconds' });
    expect(status.retryAt).toBe(Date.now() + 30_000);
    const asked = server.requests.length;
    await engine.syncNow();
    vi.advanceTimersByTime(29_000);
    await engine.syncNow();
    expect(server.requests.length).toBe(asked);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(engine.currentStatus().phase).toBe('idle'));
    expect(server.requests.length).toBeGreaterThan(asked);
    expect(engine.currentStatus().retryAt).toBeNull();
  });

  it('a 503 with Retry-After is "the server is busy", and waits too', async () => {
    await engine.createVault();
    server.script.push(() => new Response('<html>busy</html>', { status: 503, headers: { 'Retry-After': '5' } }));
    await engine.syncNow();
    expect(engine.currentStatus()).toMatchObject({ phase: 'error', error: 'The server is busy.' });
    expect(engine.currentStatus().retryAt).not.toBeNull();
  });

  it('a vault the server no longer has stops syncing, says so, and starting again makes a new one from the decks here', async () => {
    const first = await engine.createVault();
    server.blobs.clear();
    await engine.syncNow();
    expect(engine.currentStatus().phase).toBe('gone');
    expect(engine.readVault()).toMatchObject({ id: first?.id, gone: true });
    const asked = server.requests.length;
    await engine.syncNow();
    expect(server.requests.length).toBe(asked);

    const again = await engine.createVault();
    expect(again?.id).not.toBe(first?.id);
    expect(again?.token).not.toBe(first?.token);
    expect(engine.currentStatus().phase).toBe('idle');
    expect(engine.readVault()?.gone).toBe(false);
    // Nothing here was lost: the new vault holds the deck.
    expect(adapters.decksHere.has('a')).toBe(true);
    expect(server.blobs.size).toBe(1);
  });

  it('reads a stored vault record that lost its shape as none', () => {
    storage.setItem('sync:vault', JSON.stringify({ id: 'not-an-id', key: 'k', token: 't' }));
    expect(engine.readVault()).toBeNull();
  });
});

describe('shared decks', () => {
  it('keep the token before the create, get the same link after a lost answer, and revoke without a key', async () => {
    server.key = 'k';
    storage.setItem('site:key', 'k');
    server.script.push(() => 'lose');
    await expect(shares.shareDeck('a')).rejects.toThrow();
    const [lost] = server.sent('POST');
    const token = /^Bearer (.+)$/.exec(lost?.headers.get('Authorization') ?? '')?.[1];
    expect(JSON.parse(lost?.stored ?? '{}')).toMatchObject({ a: { token } });
    expect(shares.shareOf('a')).toBeNull();

    const share = await shares.shareDeck('a');
    expect(server.sent('POST')[1]?.headers.get('Authorization')).toBe(`Bearer ${token ?? ''}`);
    expect(server.blobs.size).toBe(1);
    expect(shares.shareOf('a')).toEqual(share);
    expect(server.sent('POST').every((post) => post.headers.get('X-Sync-Key') === 'k')).toBe(true);

    if (!share) throw new Error('no share');
    const opened = await shares.openShare(share);
    expect(opened?.deck).toMatchObject({ name: 'Verbs' });
    await shares.revokeShare('a');
    const [removal] = server.sent('DELETE');
    expect(removal?.headers.get('X-Sync-Key')).toBeNull();
    expect(shares.shareOf('a')).toBeNull();
    expect(await shares.openShare(share)).toBeNull();
  });
});
